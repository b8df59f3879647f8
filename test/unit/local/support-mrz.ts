/** Test/bench helper: a PageImage from an image file, as the live decoder will hand it over (EXIF applied, <= 3000 px). */
import sharp from 'sharp';
import { MAX_READ_SIDE, type PageImage } from '../../../server/src/providers/local/types.ts';

/** Decode, apply EXIF orientation, optionally rotate by a multiple of 90 degrees clockwise, fit into 3000 px. */
export async function loadPage(input: string | Buffer, rotate = 0): Promise<PageImage> {
  const { data, info } = await sharp(input).autoOrient().rotate(rotate).removeAlpha().toColourspace('srgb').raw().toBuffer({ resolveWithObject: true });
  const scale = Math.min(1, MAX_READ_SIDE / Math.max(info.width, info.height));
  const width = Math.round(info.width * scale);
  const height = Math.round(info.height * scale);
  const raw = { raw: { width: info.width, height: info.height, channels: info.channels } } as const;
  const rgb = scale < 1 ? await sharp(data, raw).resize(width, height, { fit: 'fill' }).raw().toBuffer() : data;
  const grey = await sharp(rgb, { raw: { width, height, channels: 3 } }).greyscale().raw().toBuffer();
  return { page: 1, width, height, grey, rgb, scale, originalWidth: info.width, originalHeight: info.height };
}
