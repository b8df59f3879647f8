import type { Language } from '../../catalogue/index.ts';

/** Every text of a dossier's verdict and cross-document checks, in the four languages: [es, en, pt, fr]. */
const M: Record<string, [string, string, string, string]> = {
  'no_documents': ['El expediente no tiene documentos.', 'The dossier has no documents.', 'O processo não tem documentos.', "Le dossier ne contient aucun document."],
  'document_missing': ['Falta el documento «{label}».', 'The document "{label}" is missing.', 'Falta o documento «{label}».', 'Le document « {label} » manque.'],
  'document_processing': ['El documento «{key}» aún se está procesando.', 'The document "{key}" is still being processed.', 'O documento «{key}» ainda está a ser processado.', 'Le document « {key} » est encore en cours de traitement.'],
  'document_failed': ['El documento «{key}» no se ha podido procesar; envíalo de nuevo.', 'The document "{key}" could not be processed; send it again.', 'Não foi possível processar o documento «{key}»; envie-o novamente.', "Le document « {key} » n'a pas pu être traité ; envoyez-le à nouveau."],
  'document_valid': ['El documento «{key}» es válido.', 'The document "{key}" is valid.', 'O documento «{key}» é válido.', 'Le document « {key} » est valide.'],
  'document_invalid': ['El documento «{key}» no es válido.', 'The document "{key}" is not valid.', 'O documento «{key}» não é válido.', "Le document « {key} » n'est pas valide."],
  'document_review': ['El documento «{key}» necesita revisión humana.', 'The document "{key}" needs human review.', 'O documento «{key}» precisa de revisão humana.', 'Le document « {key} » nécessite une vérification humaine.'],
  'document_unverified': ['El documento «{key}» no tiene veredicto (se analizó sin expect); revísalo.', 'The document "{key}" has no verdict (it was analysed without expect); review it.', 'O documento «{key}» não tem veredicto (foi analisado sem expect); reveja-o.', "Le document « {key} » n'a pas de verdict (analysé sans expect) ; vérifiez-le."],
  'type_mismatch': ['El documento «{key}» es {label}; se esperaba {expected}.', 'The document "{key}" is {label}; {expected} was expected.', 'O documento «{key}» é {label}; esperava-se {expected}.', 'Le document « {key} » est {label} ; {expected} était attendu.'],
  'same_holder.ok': ['Todos los documentos son del mismo titular.', 'Every document belongs to the same holder.', 'Todos os documentos são do mesmo titular.', 'Tous les documents appartiennent au même titulaire.'],
  'same_holder.name': ['El nombre del titular de «{key}» no coincide con el de «{ref}».', 'The holder\'s name on "{key}" does not match the one on "{ref}".', 'O nome do titular de «{key}» não coincide com o de «{ref}».', 'Le nom du titulaire de « {key} » ne correspond pas à celui de « {ref} ».'],
  'same_holder.birth_date': ['La fecha de nacimiento de «{key}» no coincide con la de «{ref}».', 'The birth date on "{key}" does not match the one on "{ref}".', 'A data de nascimento de «{key}» não coincide com a de «{ref}».', 'La date de naissance de « {key} » ne correspond pas à celle de « {ref} ».'],
  'same_holder.number': ['El número de identificación de «{key}» no coincide con el de «{ref}».', 'The identification number on "{key}" does not match the one on "{ref}".', 'O número de identificação de «{key}» não coincide com o de «{ref}».', "Le numéro d'identification de « {key} » ne correspond pas à celui de « {ref} »."],
  'same_holder.fail': ['No todos los documentos son del mismo titular.', 'Not every document belongs to the same holder.', 'Nem todos os documentos são do mesmo titular.', 'Les documents n\'appartiennent pas tous au même titulaire.'],
  'consistent_dates.ok': ['Las fechas de los documentos son coherentes entre sí.', "The documents' dates are consistent with each other.", 'As datas dos documentos são coerentes entre si.', 'Les dates des documents sont cohérentes entre elles.'],
  'consistent_dates.fail': ['Las fechas de los documentos no son coherentes entre sí.', "The documents' dates are not consistent with each other.", 'As datas dos documentos não são coerentes entre si.', 'Les dates des documents ne sont pas cohérentes entre elles.'],
  'issued_after_expiry': ['«{key}» se emitió el {issued}, después de que caducara «{ref}» ({expired}).', '"{key}" was issued on {issued}, after "{ref}" expired ({expired}).', '«{key}» foi emitido em {issued}, depois de «{ref}» ter expirado ({expired}).', '« {key} » a été délivré le {issued}, après l\'expiration de « {ref} » ({expired}).'],
  'payslips_consecutive.ok': ['Las nóminas son de meses consecutivos ({months}).', 'The payslips are of consecutive months ({months}).', 'Os recibos de vencimento são de meses consecutivos ({months}).', 'Les bulletins de paie portent sur des mois consécutifs ({months}).'],
  'payslips_consecutive.fail': ['Las nóminas no son de meses consecutivos ({months}).', 'The payslips are not of consecutive months ({months}).', 'Os recibos de vencimento não são de meses consecutivos ({months}).', 'Les bulletins de paie ne portent pas sur des mois consécutifs ({months}).'],
  'payslips_consecutive.missing': ['No se ha podido leer el periodo de alguna nómina.', 'The period of a payslip could not be read.', 'Não foi possível ler o período de algum recibo de vencimento.', "La période d'un bulletin de paie n'a pas pu être lue."],
  'document_too_old.ok': ['«{key}» se emitió hace {days} días (máximo {max}).', '"{key}" was issued {days} days ago (at most {max}).', '«{key}» foi emitido há {days} dias (máximo {max}).', '« {key} » a été délivré il y a {days} jours (maximum {max}).'],
  'document_too_old.fail': ['«{key}» se emitió hace {days} días; se admiten como máximo {max}.', '"{key}" was issued {days} days ago; at most {max} are accepted.', '«{key}» foi emitido há {days} dias; aceitam-se no máximo {max}.', '« {key} » a été délivré il y a {days} jours ; {max} au maximum sont acceptés.'],
  'document_too_old.missing': ['No se ha podido leer la fecha de emisión de «{key}».', 'The issue date of "{key}" could not be read.', 'Não foi possível ler a data de emissão de «{key}».', "La date de délivrance de « {key} » n'a pas pu être lue."],
  'i9_list': ['«{key}»: documento de la lista {list} del formulario I-9.', '"{key}": Form I-9 List {list} document.', '«{key}»: documento da lista {list} do formulário I-9.', '« {key} » : document de la liste {list} du formulaire I-9.'],
  'i9_documents.ok_a': ['Formulario I-9: hay un documento de la lista A.', 'Form I-9: a List A document is present.', 'Formulário I-9: há um documento da lista A.', 'Formulaire I-9 : un document de la liste A est présent.'],
  'i9_documents.ok_bc': ['Formulario I-9: hay un documento de la lista B y otro de la lista C.', 'Form I-9: a List B and a List C document are present.', 'Formulário I-9: há um documento da lista B e outro da lista C.', 'Formulaire I-9 : un document de la liste B et un de la liste C sont présents.'],
  'i9_documents.missing': ['Formulario I-9: falta un documento de la lista A, o uno de la lista B y otro de la lista C.', 'Form I-9: one List A document, or one List B and one List C document, is missing.', 'Formulário I-9: falta um documento da lista A, ou um da lista B e outro da lista C.', 'Formulaire I-9 : il manque un document de la liste A, ou un de la liste B et un de la liste C.'],
  'i9_documents.missing_c': ['Formulario I-9: falta un documento de la lista C (o uno de la lista A).', 'Form I-9: a List C document (or a List A document) is missing.', 'Formulário I-9: falta um documento da lista C (ou um da lista A).', 'Formulaire I-9 : il manque un document de la liste C (ou un de la liste A).'],
  'i9_documents.missing_b': ['Formulario I-9: falta un documento de la lista B (o uno de la lista A).', 'Form I-9: a List B document (or a List A document) is missing.', 'Formulário I-9: falta um documento da lista B (ou um da lista A).', 'Formulaire I-9 : il manque un document de la liste B (ou un de la liste A).'],
};

const INDEX: Record<Language, number> = { es: 0, en: 1, pt: 2, fr: 3 };

/** The text for `key` in `language`, with `{name}` placeholders filled. */
export function dt(language: Language, key: string, params: Record<string, string | number> = {}): string {
  const entry = M[key];
  if (!entry) throw new Error(`no dossier message ${key}`);
  return entry[INDEX[language] ?? INDEX.es].replace(/\{(\w+)\}/g, (_m, name: string) => (name in params ? String(params[name]) : `{${name}}`));
}
