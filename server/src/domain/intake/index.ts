/** Document intake: type detection, decodability and page count, file_base64 and file_url. See docs/intake.md. */
export { ACCEPTED_MIME_TYPES, detectFileType, type AcceptedMime, type DetectedFileType } from './detect.ts';
export {
  MAX_IMAGE_PIXELS,
  MAX_PAGES_ASYNC,
  MAX_PAGES_SYNC,
  countPdfPages,
  identifyUpload,
  inspectFile,
  maxPagesFor,
  type FileInspection,
  type InspectOptions,
} from './inspect.ts';
export { decodeBase64File } from './base64.ts';
export {
  FILE_URL_TIMEOUT_MS,
  checkFileUrl,
  downloadFileUrl,
  filenameFromUrl,
  parseFileUrl,
  type DownloadFileUrlOptions,
  type DownloadedFile,
  type HostResolver,
} from './file-url.ts';
export { METADATA_ADDRESSES, isPublicAddress, judgeAddress, type AddressVerdict } from './address-policy.ts';
