// Bounds of a sheet-image request, in a module of their own so the tool's schema needs nothing else.
export const MIN_DPI = 24;
export const MAX_DPI = 600;
/** Images one call may draw. */
export const MAX_IMAGES = 100;
