// The review window's size and place, remembered across launches (one file in the app's data folder).
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';

export interface Bounds {
  x: number;
  y: number;
  width: number;
  height: number;
}

export interface WindowState {
  bounds: Bounds;
  maximized: boolean;
}

export const DEFAULT_SIZE = { width: 1280, height: 860 };
/** A second window while one is open is placed this much lower and to the right. */
export const CASCADE = 28;

const isBounds = (value: unknown): value is Bounds =>
  typeof value === 'object' &&
  value !== null &&
  ['x', 'y', 'width', 'height'].every((key) => Number.isFinite((value as Record<string, unknown>)[key]));

export class WindowStateFile {
  private readonly file: string;

  constructor(dir: string) {
    this.file = path.join(dir, 'window-state.json');
  }

  /** The last saved state, or undefined (none yet, or unreadable: the window gets the default size). */
  load(): WindowState | undefined {
    try {
      const value = JSON.parse(readFileSync(this.file, 'utf8')) as Partial<WindowState>;
      if (!isBounds(value.bounds)) return undefined;
      return { bounds: value.bounds, maximized: value.maximized === true };
    } catch {
      return undefined;
    }
  }

  /** Saves atomically (temp + rename), so a crash never leaves half a file. */
  save(state: WindowState): void {
    try {
      mkdirSync(path.dirname(this.file), { recursive: true });
      const temp = `${this.file}.${process.pid}.tmp`;
      writeFileSync(temp, `${JSON.stringify(state)}\n`);
      renameSync(temp, this.file);
    } catch {
      // remembering the window is a comfort, never a reason to fail
    }
  }
}

/**
 * Where a window opens: the remembered bounds when they are still on a screen (a monitor may be gone),
 * moved by CASCADE for each window already open.
 */
export function placeWindow(
  saved: WindowState | undefined,
  openWindows: number,
  visible: (bounds: Bounds) => boolean,
): Partial<Bounds> & { width: number; height: number } {
  if (!saved || !visible(saved.bounds)) return { ...DEFAULT_SIZE };
  const shift = openWindows * CASCADE;
  return { ...saved.bounds, x: saved.bounds.x + shift, y: saved.bounds.y + shift };
}
