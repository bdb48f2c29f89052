import { AsyncLocalStorage } from 'node:async_hooks';

// The AbortSignal of the tool call running in the current async context, so that atomic writes deep in
// an engine are abandoned with their call (client cancel, server shutdown) without threading the
// signal through every engine function. Internal: the tool server sets it, withAtomicFile reads it.
const scope = new AsyncLocalStorage<AbortSignal>();

export function runWithCallSignal<T>(signal: AbortSignal, fn: () => T): T {
  return scope.run(signal, fn);
}

export function currentCallSignal(): AbortSignal | undefined {
  return scope.getStore();
}
