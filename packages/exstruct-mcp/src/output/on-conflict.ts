export const ON_CONFLICT_POLICIES = ['overwrite', 'skip', 'rename'] as const;
export type OnConflict = (typeof ON_CONFLICT_POLICIES)[number];
