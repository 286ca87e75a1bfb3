/**
 * The package version, recorded in the files corskin writes (a test keeps it equal to
 * package.json's).
 * @module
 */

/** corskin's version string. */
export const VERSION = '0.1.0';
