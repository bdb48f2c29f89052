import { ToolError } from '@mcp-workbench/core/engine';

export interface SizeFilter {
  /** '+' at least, '-' at most, '' exactly. */
  op: '+' | '-' | '';
  bytes: number;
}

const SIZE_UNITS: Record<string, number> = {
  b: 1,
  k: 1_000,
  kb: 1_000,
  ki: 1_024,
  kib: 1_024,
  m: 1_000_000,
  mb: 1_000_000,
  mi: 1_048_576,
  mib: 1_048_576,
  g: 1_000_000_000,
  gb: 1_000_000_000,
  gi: 1_073_741_824,
  gib: 1_073_741_824,
};

/** Parses fd-style size filters: "+10k" (at least 10 kB), "-1Mi" (at most 1 MiB), "500b" (exactly). */
export function parseSize(text: string): SizeFilter {
  const match = /^([+-]?)(\d+(?:\.\d+)?)\s*([a-z]*)$/i.exec(text.trim());
  const unit = SIZE_UNITS[(match?.[3] ?? '').toLowerCase() || 'b'];
  if (!match || unit === undefined) {
    throw new ToolError('INVALID_ARGUMENT', `Invalid size filter "${text}".`, {
      hint: 'Use +N or -N with a unit b, k, m, g (×1000) or ki, mi, gi (×1024), e.g. "+10k" or "-1mi".',
    });
  }
  return { op: (match[1] ?? '') as SizeFilter['op'], bytes: Math.round(Number(match[2]) * unit) };
}

export function sizeMatches(size: number, filter: SizeFilter): boolean {
  if (filter.op === '+') return size >= filter.bytes;
  if (filter.op === '-') return size <= filter.bytes;
  return size === filter.bytes;
}

const DURATION_UNITS: Record<string, number> = {
  s: 1_000,
  sec: 1_000,
  second: 1_000,
  seconds: 1_000,
  m: 60_000,
  min: 60_000,
  minute: 60_000,
  minutes: 60_000,
  h: 3_600_000,
  hour: 3_600_000,
  hours: 3_600_000,
  d: 86_400_000,
  day: 86_400_000,
  days: 86_400_000,
  w: 604_800_000,
  week: 604_800_000,
  weeks: 604_800_000,
};

/**
 * A point in time from a duration back from `now` ("2d", "3h", "30min", "1w") or an absolute date
 * ("2024-05-01", "2024-05-01T10:00:00Z"). Returns epoch milliseconds.
 */
export function parseTimePoint(text: string, name: string, now = Date.now()): number {
  const duration = /^(\d+(?:\.\d+)?)\s*([a-z]+)$/i.exec(text.trim());
  if (duration) {
    const unit = DURATION_UNITS[(duration[2] ?? '').toLowerCase()];
    if (unit !== undefined) return now - Number(duration[1]) * unit;
  }
  if (/^\d{4}-\d{2}-\d{2}/.test(text.trim())) {
    const absolute = Date.parse(text.trim());
    if (!Number.isNaN(absolute)) return absolute;
  }
  throw new ToolError('INVALID_ARGUMENT', `Invalid ${name} "${text}".`, {
    hint: `Use a duration such as "30min", "2h", "3d", "1w", or a date such as "2024-05-01".`,
  });
}
