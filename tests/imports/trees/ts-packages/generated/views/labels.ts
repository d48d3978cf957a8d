// written by the i18n build step; its folder mirrors src/
export const labels = { save: 'Save', cancel: 'Cancel' } as const;
