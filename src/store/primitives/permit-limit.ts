// Its own module so the job verbs and the job API check a request's permits without loading the
// store's schema (drizzle) into a short-lived verb process.

/** The most permits one semaphore may have. */
export const MAX_PERMITS = 1024;
