/** The text-document readers of the local engine: classification, extraction and embedded invoices from text. */
export { classifyText, isInvoiceType, type TextClassification } from './classify.ts';
export { parseInvoiceXml, readEmbeddedInvoice, type EmbeddedInvoice } from './embedded.ts';
export { extractFields, type ExtractOptions } from './extract.ts';
export { classifyIdFront, classifyIdFrontBoth, readIdFrontFields, readIdFrontFieldsBoth, type IdFrontClassification } from './id-front.ts';
export { detectCountry, findIbans, findTaxIds } from './ids.ts';
export { findAmounts, findDates, guessLanguage, parseNumber, union } from './normalize.ts';
export { splitDocuments } from './receipt.ts';
