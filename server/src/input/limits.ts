/** 20 MB, counted as MiB (20 × 1024 × 1024 bytes): the file size limit of the specification, whatever carries the file. */
export const MAX_FILE_BYTES = 20 * 1024 * 1024;
