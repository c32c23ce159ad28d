/** The first variant (0) is A, as the owner reads it everywhere. */
export const variantLetter = (index: number) => String.fromCharCode(65 + index);
