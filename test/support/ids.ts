/** An id nothing in the test created: a fresh UUID, for asking about what does not exist. */
export const unknownId = () => crypto.randomUUID();
