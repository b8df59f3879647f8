import type { Language } from '../../catalogue/index.ts';

/** Every text Cotejo writes into an analysis (verdict, checks, failure, warnings in words), in the four languages: [es, en, pt, fr]. */
const M: Record<string, [string, string, string, string]> = {
  'type_match': ['El documento es del tipo esperado ({label}).', 'The document is of the expected type ({label}).', 'O documento é do tipo esperado ({label}).', 'Le document est du type attendu ({label}).'],
  'type_mismatch': ['Se esperaba {expected}, pero el documento es {label}.', 'Expected {expected}, but the document is {label}.', 'Esperava-se {expected}, mas o documento é {label}.', '{expected} était attendu, mais le document est {label}.'],
  'type_unknown': ['No se ha podido identificar el tipo de documento con seguridad.', 'The document type could not be identified with confidence.', 'Não foi possível identificar o tipo de documento com segurança.', "Le type de document n'a pas pu être identifié avec certitude."],
  'not_expired.ok': ['El documento está en vigor (caduca el {date}).', 'The document is valid (expires on {date}).', 'O documento está válido (expira em {date}).', 'Le document est en cours de validité (expire le {date}).'],
  'not_expired.fail': ['El documento caducó el {date}.', 'The document expired on {date}.', 'O documento expirou em {date}.', 'Le document a expiré le {date}.'],
  'not_expired.missing': ['No se ha podido leer la fecha de caducidad.', 'The expiry date could not be read.', 'Não foi possível ler a data de validade.', "La date d'expiration n'a pas pu être lue."],
  'max_age_days.ok': ['El documento se emitió hace {days} días (máximo {max}).', 'The document was issued {days} days ago (at most {max}).', 'O documento foi emitido há {days} dias (máximo {max}).', 'Le document a été délivré il y a {days} jours (maximum {max}).'],
  'max_age_days.fail': ['El documento se emitió hace {days} días; se admiten como máximo {max}.', 'The document was issued {days} days ago; at most {max} are accepted.', 'O documento foi emitido há {days} dias; aceitam-se no máximo {max}.', 'Le document a été délivré il y a {days} jours ; {max} au maximum sont acceptés.'],
  'max_age_days.missing': ['No se ha podido leer la fecha de emisión.', 'The issue date could not be read.', 'Não foi possível ler a data de emissão.', "La date de délivrance n'a pas pu être lue."],
  'min_age_years.ok': ['El titular tiene {age} años (mínimo {min}).', 'The holder is {age} years old (at least {min}).', 'O titular tem {age} anos (mínimo {min}).', 'Le titulaire a {age} ans (minimum {min}).'],
  'min_age_years.fail': ['El titular tiene {age} años; se exigen al menos {min}.', 'The holder is {age} years old; at least {min} are required.', 'O titular tem {age} anos; exigem-se pelo menos {min}.', 'Le titulaire a {age} ans ; {min} au moins sont exigés.'],
  'max_age_years.ok': ['El titular tiene {age} años (máximo {max}).', 'The holder is {age} years old (at most {max}).', 'O titular tem {age} anos (máximo {max}).', 'Le titulaire a {age} ans (maximum {max}).'],
  'max_age_years.fail': ['El titular tiene {age} años; se admiten como máximo {max}.', 'The holder is {age} years old; at most {max} are accepted.', 'O titular tem {age} anos; aceitam-se no máximo {max}.', 'Le titulaire a {age} ans ; {max} au maximum sont acceptés.'],
  'age.missing': ['No se ha podido leer la fecha de nacimiento.', 'The birth date could not be read.', 'Não foi possível ler a data de nascimento.', "La date de naissance n'a pas pu être lue."],
  'holder.ok': ['Los datos del titular coinciden.', "The holder's details match.", 'Os dados do titular coincidem.', 'Les données du titulaire correspondent.'],
  'holder.fail': ['Los datos del titular no coinciden: {fields}.', "The holder's details do not match: {fields}.", 'Os dados do titular não coincidem: {fields}.', 'Les données du titulaire ne correspondent pas : {fields}.'],
  'holder.missing': ['No se han podido leer los datos del titular para compararlos.', "The holder's details could not be read to compare them.", 'Não foi possível ler os dados do titular para os comparar.', "Les données du titulaire n'ont pas pu être lues pour les comparer."],
  'required_field_missing': ['Falta el campo obligatorio «{field}».', 'The required field "{field}" is missing.', 'Falta o campo obrigatório «{field}».', 'Le champ obligatoire « {field} » est absent.'],
  'require_signature.ok': ['El documento está firmado.', 'The document is signed.', 'O documento está assinado.', 'Le document est signé.'],
  'require_signature.fail': ['El documento no está firmado.', 'The document is not signed.', 'O documento não está assinado.', "Le document n'est pas signé."],
  'require_signature.unknown': ['No se ha podido comprobar si el documento está firmado.', 'Whether the document is signed could not be checked.', 'Não foi possível verificar se o documento está assinado.', "Il n'a pas été possible de vérifier si le document est signé."],
  'require_stamp.ok': ['El documento está sellado.', 'The document is stamped.', 'O documento está carimbado.', 'Le document porte un cachet.'],
  'require_stamp.fail': ['El documento no está sellado.', 'The document is not stamped.', 'O documento não está carimbado.', 'Le document ne porte pas de cachet.'],
  'require_stamp.unknown': ['No se ha podido comprobar si el documento está sellado.', 'Whether the document is stamped could not be checked.', 'Não foi possível verificar se o documento está carimbado.', "Il n'a pas été possible de vérifier si le document porte un cachet."],
  'expected_amount.ok': ['El importe coincide ({amount}).', 'The amount matches ({amount}).', 'O montante coincide ({amount}).', 'Le montant correspond ({amount}).'],
  'expected_amount.fail': ['El importe es {amount}; se esperaba {expected}.', 'The amount is {amount}; {expected} was expected.', 'O montante é {amount}; esperava-se {expected}.', 'Le montant est {amount} ; {expected} était attendu.'],
  'expected_amount.missing': ['No se ha podido leer el importe.', 'The amount could not be read.', 'Não foi possível ler o montante.', "Le montant n'a pas pu être lu."],
  'expected_iban.ok': ['El IBAN coincide.', 'The IBAN matches.', 'O IBAN coincide.', "L'IBAN correspond."],
  'expected_iban.fail': ['El IBAN del documento ({iban}) no es el esperado.', 'The IBAN on the document ({iban}) is not the expected one.', 'O IBAN do documento ({iban}) não é o esperado.', "L'IBAN du document ({iban}) n'est pas celui attendu."],
  'expected_iban.missing': ['No se ha podido leer el IBAN.', 'The IBAN could not be read.', 'Não foi possível ler o IBAN.', "L'IBAN n'a pas pu être lu."],
  'expected_reference.ok': ['La referencia esperada aparece en el documento.', 'The expected reference appears on the document.', 'A referência esperada aparece no documento.', 'La référence attendue figure sur le document.'],
  'expected_reference.fail': ['La referencia esperada no aparece en el documento.', 'The expected reference does not appear on the document.', 'A referência esperada não aparece no documento.', 'La référence attendue ne figure pas sur le document.'],
  'expected_reference.missing': ['No se ha podido leer la referencia ni el concepto.', 'The reference or concept could not be read.', 'Não foi possível ler a referência nem o conceito.', "La référence ou le motif n'a pas pu être lu."],
  'low_quality': ['La calidad de la imagen no es suficiente ({warnings}); pide otra foto.', 'The image quality is not sufficient ({warnings}); ask for another photo.', 'A qualidade da imagem não é suficiente ({warnings}); peça outra fotografia.', "La qualité de l'image est insuffisante ({warnings}) ; demandez une autre photo."],
  'low_confidence': ['La lectura del documento tiene poca confianza; revísalo.', 'The reading of the document has low confidence; review it.', 'A leitura do documento tem pouca confiança; reveja-o.', 'La lecture du document est peu fiable ; vérifiez-le.'],
  'edited_suspected': ['Hay indicios de que el documento ha sido editado.', 'There are signs that the document has been edited.', 'Há indícios de que o documento foi editado.', 'Des indices laissent penser que le document a été modifié.'],
  'signature_valid': ['La firma electrónica del PDF es válida ({signer}).', "The PDF's electronic signature is valid ({signer}).", 'A assinatura eletrónica do PDF é válida ({signer}).', 'La signature électronique du PDF est valide ({signer}).'],
  'signature_invalid': ['La firma electrónica del PDF no es válida.', "The PDF's electronic signature is not valid.", 'A assinatura eletrónica do PDF não é válida.', "La signature électronique du PDF n'est pas valide."],
  'signature_missing': ['El documento no tiene firma electrónica (una foto o un escaneo nunca la tienen).', 'The document has no electronic signature (a photo or scan never has one).', 'O documento não tem assinatura eletrónica (uma foto ou digitalização nunca a tem).', "Le document n'a pas de signature électronique (une photo ou un scan n'en a jamais)."],
  'document_modified_after_signing': ['El PDF se modificó después de firmarse.', 'The PDF was modified after it was signed.', 'O PDF foi modificado depois de assinado.', 'Le PDF a été modifié après sa signature.'],
  'untrusted_signer': ['La firma no procede de un emisor de confianza.', 'The signature does not come from a trusted issuer.', 'A assinatura não provém de um emissor de confiança.', "La signature ne provient pas d'un émetteur de confiance."],
  'revoked': ['Un certificado de la firma estaba revocado cuando se firmó.', 'A certificate of the signature was revoked when it was signed.', 'Um certificado da assinatura estava revogado quando foi assinada.', 'Un certificat de la signature était révoqué au moment de la signature.'],
  'revoked.after_claimed_time': ['Un certificado de la firma fue revocado después de la fecha de firma declarada, que ningún sello de tiempo prueba.', 'A certificate of the signature was revoked after the claimed signing date, which no time-stamp proves.', 'Um certificado da assinatura foi revogado depois da data de assinatura declarada, que nenhum carimbo temporal prova.', "Un certificat de la signature a été révoqué après la date de signature déclarée, qu'aucun horodatage ne prouve."],
  'revocation_unknown': ['No se ha podido comprobar si los certificados de la firma están revocados.', 'Whether the certificates of the signature are revoked could not be checked.', 'Não foi possível verificar se os certificados da assinatura estão revogados.', "La révocation des certificats de la signature n'a pas pu être vérifiée."],
  'i9_list': ['Documento de la lista {list} del formulario I-9.', 'Form I-9 List {list} document.', 'Documento da lista {list} do formulário I-9.', 'Document de la liste {list} du formulaire I-9.'],
  'not_fit_for_sport': ['El certificado declara que el titular no es apto para la práctica deportiva.', 'The certificate states the holder is not fit for sport.', 'O certificado declara que o titular não está apto para a prática desportiva.', "Le certificat déclare le titulaire inapte à la pratique sportive."],
  'has_records': ['El certificado indica que constan antecedentes.', 'The certificate shows records.', 'O certificado indica que constam antecedentes.', 'Le certificat fait état d’antécédents.'],
  // Checks (CheckResult.message)
  'check.nif_check_digit.ok': ['La letra o dígito de control del NIF es correcto.', 'The NIF check letter or digit is correct.', 'A letra ou dígito de controlo do NIF está correto.', 'La lettre ou le chiffre de contrôle du NIF est correct.'],
  'check.nif_check_digit.fail': ['La letra o dígito de control del NIF no es correcto.', 'The NIF check letter or digit is wrong.', 'A letra ou dígito de controlo do NIF não está correto.', "La lettre ou le chiffre de contrôle du NIF n'est pas correct."],
  'check.mrz_checksums.ok': ['Los dígitos de control de la MRZ son correctos.', 'The MRZ check digits are correct.', 'Os dígitos de controlo da MRZ estão corretos.', 'Les chiffres de contrôle de la MRZ sont corrects.'],
  'check.mrz_checksums.fail': ['Algún dígito de control de la MRZ no es correcto.', 'An MRZ check digit is wrong.', 'Algum dígito de controlo da MRZ não está correto.', "Un chiffre de contrôle de la MRZ n'est pas correct."],
  'check.mrz_matches_visual.ok': ['La MRZ coincide con los datos impresos.', 'The MRZ matches the printed data.', 'A MRZ coincide com os dados impressos.', 'La MRZ correspond aux données imprimées.'],
  'check.mrz_matches_visual.fail': ['La MRZ no coincide con los datos impresos.', 'The MRZ does not match the printed data.', 'A MRZ não coincide com os dados impressos.', 'La MRZ ne correspond pas aux données imprimées.'],
  'check.iban_checksum.ok': ['El IBAN es válido.', 'The IBAN is valid.', 'O IBAN é válido.', "L'IBAN est valide."],
  'check.iban_checksum.fail': ['El IBAN no es válido.', 'The IBAN is not valid.', 'O IBAN não é válido.', "L'IBAN n'est pas valide."],
  'check.invoice_totals.ok': ['Las líneas, bases, impuestos y total de la factura cuadran.', "The invoice's lines, bases, taxes and total add up.", 'As linhas, bases, impostos e total da fatura batem certo.', 'Les lignes, bases, taxes et total de la facture concordent.'],
  'check.invoice_totals.fail': ['Los importes de la factura no cuadran.', "The invoice's amounts do not add up.", 'Os montantes da fatura não batem certo.', 'Les montants de la facture ne concordent pas.'],
  'check.csv_format.ok': ['El código seguro de verificación tiene un formato válido.', 'The secure verification code has a valid format.', 'O código seguro de verificação tem um formato válido.', 'Le code sécurisé de vérification a un format valide.'],
  'check.csv_format.fail': ['El código seguro de verificación no tiene un formato válido.', 'The secure verification code does not have a valid format.', 'O código seguro de verificação não tem um formato válido.', "Le code sécurisé de vérification n'a pas un format valide."],
  'check.date_consistency.ok': ['Las fechas del documento son coherentes.', "The document's dates are consistent.", 'As datas do documento são coerentes.', 'Les dates du document sont cohérentes.'],
  'check.date_consistency.fail': ['Las fechas del documento no son coherentes.', "The document's dates are not consistent.", 'As datas do documento não são coerentes.', 'Les dates du document ne sont pas cohérentes.'],
  'check.id_number_checksum.ok': ['El dígito de control del número de identificación es correcto.', 'The identification number check digit is correct.', 'O dígito de controlo do número de identificação está correto.', "La clé de contrôle du numéro d'identification est correcte."],
  'check.id_number_checksum.fail': ['El dígito de control del número de identificación no es correcto.', 'The identification number check digit is wrong.', 'O dígito de controlo do número de identificação não está correto.', "La clé de contrôle du numéro d'identification n'est pas correcte."],
  'check.id_number_format.ok': ['El número de identificación tiene un formato válido.', 'The identification number has a valid format.', 'O número de identificação tem um formato válido.', "Le numéro d'identification a un format valide."],
  'check.id_number_format.fail': ['El número de identificación no tiene un formato válido.', 'The identification number does not have a valid format.', 'O número de identificação não tem um formato válido.', "Le numéro d'identification n'a pas un format valide."],
  'check.id_number_matches_birth_date.ok': ['El número de identificación coincide con la fecha de nacimiento.', 'The identification number matches the birth date.', 'O número de identificação coincide com a data de nascimento.', "Le numéro d'identification correspond à la date de naissance."],
  'check.id_number_matches_birth_date.fail': ['El número de identificación no coincide con la fecha de nacimiento.', 'The identification number does not match the birth date.', 'O número de identificação não coincide com a data de nascimento.', "Le numéro d'identification ne correspond pas à la date de naissance."],
  'check.aamva_matches_visual.ok': ['El código de barras PDF417 coincide con los datos impresos.', 'The PDF417 barcode matches the printed data.', 'O código de barras PDF417 coincide com os dados impressos.', 'Le code-barres PDF417 correspond aux données imprimées.'],
  'check.aamva_matches_visual.fail': ['El código de barras PDF417 no coincide con los datos impresos.', 'The PDF417 barcode does not match the printed data.', 'O código de barras PDF417 não coincide com os dados impressos.', 'Le code-barres PDF417 ne correspond pas aux données imprimées.'],
  // The `error.message` of a failed analysis or classification (the error envelope of a refused request stays Spanish).
  'failure.processing_failed': ['El documento no se ha podido procesar.', 'The document could not be processed.', 'Não foi possível processar o documento.', "Le document n'a pas pu être traité."],
  'failure.original_missing': ['No se ha podido leer el archivo original.', 'The original file could not be read.', 'Não foi possível ler o ficheiro original.', "Le fichier original n'a pas pu être lu."],
  'failure.live_unavailable': ['El modo live no está disponible.', 'Live mode is not available.', 'O modo live não está disponível.', "Le mode live n'est pas disponible."],
  'failure.provider_refused': [
    'El proveedor de IA ha rechazado la petición; no se ha cobrado nada.',
    'The AI provider refused the request; nothing was charged.',
    'O fornecedor de IA recusou o pedido; nada foi cobrado.',
    "Le fournisseur d'IA a refusé la requête ; rien n'a été facturé.",
  ],
  'failure.no_local_reader': ['Ningún lector local ha podido leer el documento.', 'No local reader could read the document.', 'Nenhum leitor local conseguiu ler o documento.', "Aucun lecteur local n'a pu lire le document."],
  'failure.simulated': ['Fallo de procesamiento simulado (escenario «failed» del modo test).', 'Simulated processing failure (test mode scenario "failed").', 'Falha de processamento simulada (cenário «failed» do modo de teste).', 'Échec de traitement simulé (scénario « failed » du mode test).'],
  'failure.empty_file': ['El archivo está vacío.', 'The file is empty.', 'O ficheiro está vazio.', 'Le fichier est vide.'],
  'failure.invalid_file_url': ['file_url no es válida.', 'file_url is not valid.', 'file_url não é válida.', "file_url n'est pas valide."],
  'failure.file_url_unreachable': ['No se pudo descargar file_url.', 'file_url could not be downloaded.', 'Não foi possível descarregar file_url.', "file_url n'a pas pu être téléchargée."],
  'failure.file_too_large': ['El archivo supera el tamaño máximo de 20 MB.', 'The file exceeds the maximum size of 20 MB.', 'O ficheiro excede o tamanho máximo de 20 MB.', 'Le fichier dépasse la taille maximale de 20 Mo.'],
  'failure.unsupported_file_type': ['Tipo de archivo no admitido.', 'Unsupported file type.', 'Tipo de ficheiro não suportado.', 'Type de fichier non pris en charge.'],
  'failure.too_many_pages': ['El PDF tiene más páginas de las admitidas.', 'The PDF has more pages than allowed.', 'O PDF tem mais páginas do que as permitidas.', 'Le PDF a plus de pages que le maximum admis.'],
  'failure.unreadable_image': ['No se puede leer la imagen.', 'The image cannot be read.', 'Não é possível ler a imagem.', "L'image ne peut pas être lue."],
  'failure.unreadable_pdf': ['No se puede leer el PDF.', 'The PDF cannot be read.', 'Não é possível ler o PDF.', 'Le PDF ne peut pas être lu.'],
  // Quality warnings in prose (the `low_quality` reason, the PDF report); the API lists their codes.
  'warning.low_quality': ['baja calidad', 'low quality', 'baixa qualidade', 'qualité insuffisante'],
  'warning.blurry': ['imagen borrosa', 'blurry image', 'imagem desfocada', 'image floue'],
  'warning.cropped': ['documento recortado', 'cropped document', 'documento cortado', 'document rogné'],
  'warning.glare': ['reflejos', 'glare', 'reflexos', 'reflets'],
  'warning.screen_photo_suspected': ['posible foto de una pantalla', 'possible photo of a screen', 'possível fotografia de um ecrã', "possible photo d'un écran"],
  'warning.photocopy_suspected': ['posible fotocopia', 'possible photocopy', 'possível fotocópia', 'possible photocopie'],
  'warning.edited_suspected': ['posible edición', 'possible editing', 'possível edição', 'possible retouche'],
  'warning.multiple_documents': ['varios documentos', 'several documents', 'vários documentos', 'plusieurs documents'],
  'warning.side_missing': ['falta una cara', 'a side is missing', 'falta um lado', 'une face manque'],
  'warning.language_mismatch': ['idioma inesperado', 'unexpected language', 'idioma inesperado', 'langue inattendue'],
};

const INDEX: Record<Language, number> = { es: 0, en: 1, pt: 2, fr: 3 };

export function hasMessage(key: string): boolean {
  return key in M;
}

/** The text for `key` in `language`, with `{name}` placeholders filled. */
export function t(language: Language, key: string, params: Record<string, string | number> = {}): string {
  const entry = M[key];
  if (!entry) throw new Error(`no message ${key}`);
  return entry[INDEX[language] ?? INDEX.es].replace(/\{(\w+)\}/g, (_m, name: string) => (name in params ? String(params[name]) : `{${name}}`));
}

export const MESSAGE_KEYS = Object.keys(M);

/**
 * The `error.message` of a work that failed with `code`, in `language`. `detail`: the Spanish text of the error that
 * stopped it (an intake refusal names what was wrong, e.g. the server that refused the download); Spanish keeps it,
 * the other languages get the code's own sentence. A code without a sentence falls back to `processing_failed`'s.
 */
export function failureMessage(language: Language, code: string, detail?: string): string {
  if (language === 'es' && detail) return detail;
  return t(language, hasMessage(`failure.${code}`) ? `failure.${code}` : 'failure.processing_failed');
}

/** A quality warning code in words, in `language` (the code itself when it is not one of the specification's). */
export function warningText(language: Language, code: string): string {
  return hasMessage(`warning.${code}`) ? t(language, `warning.${code}`) : code;
}
