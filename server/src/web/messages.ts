import type { Language } from '../catalogue/index.ts';

/**
 * Every text of the hosted verification page, in the four languages: [es, en, pt, fr]. Written for the person who
 * holds the phone (plain words, second person), not for the business: no error codes, no JSON.
 */
const M: Record<string, [string, string, string, string]> = {
  'page.title': ['Verificación de documentos', 'Document verification', 'Verificação de documentos', 'Vérification de documents'],
  'page.for': ['Página segura de verificación para {requester}. No compartas este enlace.', 'Secure verification page for {requester}. Do not share this link.', 'Página segura de verificação para {requester}. Não partilhe esta ligação.', 'Page de vérification sécurisée pour {requester}. Ne partagez pas ce lien.'],
  'page.test_mode': ['Modo de prueba: la lectura es simulada y no se cobra nada.', 'Test mode: the reading is simulated and nothing is charged.', 'Modo de teste: a leitura é simulada e nada é cobrado.', "Mode test : la lecture est simulée et rien n'est facturé."],
  'page.step': ['Paso {n} de {total}', 'Step {n} of {total}', 'Passo {n} de {total}', 'Étape {n} sur {total}'],
  'page.expires': ['Este enlace caduca el {date}.', 'This link expires on {date}.', 'Esta ligação expira em {date}.', 'Ce lien expire le {date}.'],

  'welcome.heading': ['{requester} te pide unos documentos', '{requester} is asking you for some documents', '{requester} pede-lhe alguns documentos', '{requester} vous demande quelques documents'],
  'welcome.intro': ['Para completar tu verificación, sube:', 'To complete your verification, upload:', 'Para concluir a sua verificação, carregue:', 'Pour terminer votre vérification, envoyez :'],
  'welcome.how': ['Solo te llevará unos minutos. Ten los documentos a mano: puedes hacerles una foto con la cámara del móvil o elegir un archivo.', 'It only takes a few minutes. Have the documents with you: you can take a photo with your phone camera or choose a file.', 'Demora apenas alguns minutos. Tenha os documentos consigo: pode tirar uma fotografia com a câmara do telemóvel ou escolher um ficheiro.', "Cela ne prend que quelques minutes. Ayez vos documents sous la main : vous pouvez les photographier avec l'appareil photo du téléphone ou choisir un fichier."],
  'welcome.start': ['Empezar', 'Start', 'Começar', 'Commencer'],

  'consent.heading': ['Tu consentimiento', 'Your consent', 'O seu consentimento', 'Votre consentement'],
  'consent.intro': ['Antes de subir tus documentos, lee y acepta lo siguiente:', 'Before you upload your documents, read and accept the following:', 'Antes de carregar os seus documentos, leia e aceite o seguinte:', 'Avant d’envoyer vos documents, lisez et acceptez ce qui suit :'],
  'consent.accept': ['Acepto y continúo', 'I accept and continue', 'Aceito e continuo', "J'accepte et je continue"],
  'consent.back': ['Volver', 'Back', 'Voltar', 'Retour'],

  'doc.heading': ['{label}', '{label}', '{label}', '{label}'],
  'doc.count': ['Documento {n} de {total}', 'Document {n} of {total}', 'Documento {n} de {total}', 'Document {n} sur {total}'],
  'doc.tips': ['Pon el documento sobre una superficie plana y con buena luz, con las cuatro esquinas a la vista y sin reflejos.', 'Place the document on a flat surface in good light, with all four corners visible and no glare.', 'Coloque o documento numa superfície plana com boa luz, com os quatro cantos visíveis e sem reflexos.', 'Posez le document sur une surface plane bien éclairée, les quatre coins visibles et sans reflets.'],
  'doc.take_photo': ['Hacer una foto', 'Take a photo', 'Tirar uma fotografia', 'Prendre une photo'],
  'doc.choose_file': ['Elegir un archivo', 'Choose a file', 'Escolher um ficheiro', 'Choisir un fichier'],
  'doc.formats': ['Imagen (JPEG, PNG, HEIC, WebP) o PDF, de 20 MB como máximo.', 'Image (JPEG, PNG, HEIC, WebP) or PDF, up to 20 MB.', 'Imagem (JPEG, PNG, HEIC, WebP) ou PDF, até 20 MB.', "Image (JPEG, PNG, HEIC, WebP) ou PDF, jusqu'à 20 Mo."],
  'doc.send': ['Enviar', 'Send', 'Enviar', 'Envoyer'],
  'doc.uploading': ['Subiendo… {percent} %', 'Uploading… {percent}%', 'A carregar… {percent} %', 'Envoi… {percent} %'],
  'doc.progress': ['Progreso de la subida', 'Upload progress', 'Progresso do carregamento', "Progression de l'envoi"],
  'doc.checking': ['Estamos revisando el documento. Espera un momento…', 'We are checking the document. Please wait…', 'Estamos a verificar o documento. Aguarde um momento…', 'Nous vérifions le document. Veuillez patienter…'],
  'doc.refresh': ['Actualizar', 'Refresh', 'Atualizar', 'Actualiser'],
  'doc.network_error': ['No se ha podido subir el archivo. Comprueba tu conexión e inténtalo de nuevo.', 'The file could not be uploaded. Check your connection and try again.', 'Não foi possível carregar o ficheiro. Verifique a ligação e tente novamente.', "Le fichier n'a pas pu être envoyé. Vérifiez votre connexion et réessayez."],

  'retry.heading': ['Necesitamos otra foto de {label}', 'We need another photo of {label}', 'Precisamos de outra fotografia de {label}', "Nous avons besoin d'une autre photo de {label}"],
  'retry.unclear': ['No hemos podido leer bien algunos caracteres. Haz una foto más nítida, de cerca y sin reflejos.', 'We could not read some characters clearly. Take a sharper photo, closer and without glare.', 'Não conseguimos ler bem alguns caracteres. Tire uma fotografia mais nítida, de perto e sem reflexos.', "Nous n'avons pas pu lire clairement certains caractères. Prenez une photo plus nette, de plus près et sans reflets."],
  'retry.attempts_left': ['Te quedan {n} intentos.', 'You have {n} attempts left.', 'Restam-lhe {n} tentativas.', 'Il vous reste {n} essais.'],
  'retry.attempts_left_one': ['Te queda 1 intento.', 'You have 1 attempt left.', 'Resta-lhe 1 tentativa.', 'Il vous reste 1 essai.'],

  'outcome.accepted': ['{label}: recibido. ¡Gracias!', '{label}: received. Thank you!', '{label}: recebido. Obrigado!', '{label} : reçu. Merci !'],
  'outcome.rejected': ['{label}: no se ha podido aceptar y no quedan intentos. {requester} lo revisará.', '{label}: it could not be accepted and no attempts are left. {requester} will review it.', '{label}: não foi possível aceitá-lo e não restam tentativas. {requester} irá analisá-lo.', "{label} : il n'a pas pu être accepté et il ne reste aucun essai. {requester} l'examinera."],
  'outcome.verdict': ['Resultado: {verdict}', 'Result: {verdict}', 'Resultado: {verdict}', 'Résultat : {verdict}'],
  'verdict.valid': ['Válido', 'Valid', 'Válido', 'Valide'],
  'verdict.invalid': ['No válido', 'Not valid', 'Não válido', 'Non valide'],
  'verdict.review': ['Pendiente de revisión', 'Pending review', 'Pendente de revisão', 'En attente de vérification'],

  'list.heading': ['Lo que se te pide', 'What is needed', 'O que é pedido', 'Ce qui est demandé'],
  'list.heading_done': ['Tus documentos', 'Your documents', 'Os seus documentos', 'Vos documents'],
  'list.todo': ['pendiente', 'to do', 'pendente', 'à faire'],
  'list.processing': ['revisando', 'checking', 'a verificar', 'en cours de vérification'],
  'list.accepted': ['recibido', 'received', 'recebido', 'reçu'],
  'list.rejected': ['no aceptado', 'not accepted', 'não aceite', 'non accepté'],

  'final.heading': ['¡Listo, gracias!', 'All done, thank you!', 'Concluído, obrigado!', 'Terminé, merci !'],
  'final.body': ['{requester} ha recibido tus documentos. Ya puedes cerrar esta página.', '{requester} has received your documents. You can close this page now.', '{requester} recebeu os seus documentos. Já pode fechar esta página.', '{requester} a bien reçu vos documents. Vous pouvez fermer cette page.'],
  'final.continue': ['Continuar', 'Continue', 'Continuar', 'Continuer'],
  'final.redirecting': ['Te llevaremos de vuelta en unos segundos.', 'We will take you back in a few seconds.', 'Vamos levá-lo de volta dentro de alguns segundos.', 'Nous vous redirigerons dans quelques secondes.'],

  'gone.expired.heading': ['Este enlace ha caducado', 'This link has expired', 'Esta ligação expirou', 'Ce lien a expiré'],
  'gone.expired.body': ['Ya no se pueden subir documentos. Pide a {requester} un enlace nuevo.', 'Documents can no longer be uploaded. Ask {requester} for a new link.', 'Já não é possível carregar documentos. Peça a {requester} uma nova ligação.', 'Il n’est plus possible d’envoyer des documents. Demandez un nouveau lien à {requester}.'],
  'gone.cancelled.heading': ['Este enlace se ha cancelado', 'This link has been cancelled', 'Esta ligação foi cancelada', 'Ce lien a été annulé'],
  'gone.cancelled.body': ['{requester} ha cancelado esta verificación. Si crees que es un error, ponte en contacto con {requester}.', '{requester} has cancelled this verification. If you think this is a mistake, contact {requester}.', '{requester} cancelou esta verificação. Se acha que é um erro, contacte {requester}.', "{requester} a annulé cette vérification. S'il s'agit d'une erreur, contactez {requester}."],
  'gone.unknown.heading': ['Este enlace no es válido', 'This link is not valid', 'Esta ligação não é válida', "Ce lien n'est pas valide"],
  'gone.unknown.body': ['Comprueba que has copiado la dirección completa, o pide un enlace nuevo a quien te lo envió.', 'Check that you copied the whole address, or ask whoever sent it to you for a new link.', 'Verifique se copiou o endereço completo, ou peça uma nova ligação a quem a enviou.', "Vérifiez que vous avez copié l'adresse complète, ou demandez un nouveau lien à la personne qui vous l'a envoyé."],

  // Quality warnings as advice for the next photo (codes of the analysis `warnings`).
  'warning.blurry': ['La foto está borrosa: sujeta el móvil quieto y toca la pantalla para enfocar.', 'The photo is blurry: hold the phone still and tap the screen to focus.', 'A fotografia está desfocada: segure o telemóvel quieto e toque no ecrã para focar.', "La photo est floue : tenez le téléphone immobile et touchez l'écran pour faire la mise au point."],
  'warning.glare': ['Hay reflejos: apaga el flash o inclina un poco el documento.', 'There is glare: turn the flash off or tilt the document slightly.', 'Há reflexos: desligue o flash ou incline ligeiramente o documento.', 'Il y a des reflets : désactivez le flash ou inclinez légèrement le document.'],
  'warning.cropped': ['El documento sale cortado: que se vean las cuatro esquinas.', 'The document is cut off: make sure all four corners are visible.', 'O documento está cortado: os quatro cantos devem estar visíveis.', 'Le document est coupé : les quatre coins doivent être visibles.'],
  'warning.low_quality': ['La imagen tiene poca calidad: busca más luz y acércate un poco.', 'The image quality is low: find more light and move a little closer.', 'A imagem tem pouca qualidade: procure mais luz e aproxime-se um pouco.', "L'image est de mauvaise qualité : cherchez plus de lumière et rapprochez-vous un peu."],
  'warning.screen_photo_suspected': ['Parece una foto de una pantalla: fotografía el documento original.', 'It looks like a photo of a screen: photograph the original document.', 'Parece uma fotografia de um ecrã: fotografe o documento original.', "Cela ressemble à la photo d'un écran : photographiez le document original."],
  'warning.photocopy_suspected': ['Parece una fotocopia: fotografía el documento original.', 'It looks like a photocopy: photograph the original document.', 'Parece uma fotocópia: fotografe o documento original.', 'Cela ressemble à une photocopie : photographiez le document original.'],
  'warning.edited_suspected': ['La imagen parece editada: sube una foto sin retocar.', 'The image looks edited: upload a photo that has not been retouched.', 'A imagem parece editada: carregue uma fotografia sem retoques.', "L'image semble modifiée : envoyez une photo non retouchée."],
  'warning.multiple_documents': ['Aparece más de un documento: fotografía solo uno.', 'More than one document is visible: photograph only one.', 'Aparece mais do que um documento: fotografe apenas um.', 'Plusieurs documents sont visibles : photographiez-en un seul.'],
  'warning.side_missing': ['Falta una cara del documento: sube también la otra cara (por ejemplo, en un PDF con las dos).', 'A side of the document is missing: include the other side too (for example, a PDF with both).', 'Falta um lado do documento: inclua também o outro lado (por exemplo, um PDF com os dois).', "Il manque une face du document : ajoutez aussi l'autre face (par exemple, un PDF avec les deux)."],
  'warning.language_mismatch': ['El documento no parece ser el que se pide: comprueba que es el correcto.', 'The document does not look like the one requested: check that it is the right one.', 'O documento não parece ser o pedido: verifique se é o correto.', 'Le document ne semble pas être celui demandé : vérifiez que c’est le bon.'],
  'warning.other': ['La foto no es lo bastante buena: inténtalo de nuevo con buena luz.', 'The photo is not good enough: try again in good light.', 'A fotografia não é suficientemente boa: tente novamente com boa luz.', "La photo n'est pas assez bonne : réessayez avec un bon éclairage."],

  // Why an upload was refused: the codes of analyze's intake errors (same limits), in words for a person.
  'error.missing_file': ['Elige una foto o un archivo antes de enviar.', 'Choose a photo or a file before sending.', 'Escolha uma fotografia ou um ficheiro antes de enviar.', 'Choisissez une photo ou un fichier avant d’envoyer.'],
  'error.empty_file': ['El archivo está vacío. Elige otro.', 'The file is empty. Choose another one.', 'O ficheiro está vazio. Escolha outro.', 'Le fichier est vide. Choisissez-en un autre.'],
  'error.file_too_large': ['El archivo pesa más de 20 MB. Haz una foto nueva o elige un archivo más pequeño.', 'The file is larger than 20 MB. Take a new photo or choose a smaller file.', 'O ficheiro tem mais de 20 MB. Tire uma nova fotografia ou escolha um ficheiro mais pequeno.', 'Le fichier dépasse 20 Mo. Prenez une nouvelle photo ou choisissez un fichier plus petit.'],
  'error.unsupported_file_type': ['Ese tipo de archivo no se admite. Sube una imagen (JPEG, PNG, HEIC, WebP) o un PDF.', 'That type of file is not accepted. Upload an image (JPEG, PNG, HEIC, WebP) or a PDF.', 'Esse tipo de ficheiro não é aceite. Carregue uma imagem (JPEG, PNG, HEIC, WebP) ou um PDF.', "Ce type de fichier n'est pas accepté. Envoyez une image (JPEG, PNG, HEIC, WebP) ou un PDF."],
  'error.too_many_pages': ['El PDF tiene demasiadas páginas. Sube solo las páginas del documento.', 'The PDF has too many pages. Upload only the pages of the document.', 'O PDF tem demasiadas páginas. Carregue apenas as páginas do documento.', 'Le PDF a trop de pages. Envoyez uniquement les pages du document.'],
  'error.unreadable_image': ['No se puede abrir la imagen. Haz una foto nueva.', 'The image cannot be opened. Take a new photo.', 'Não é possível abrir a imagem. Tire uma nova fotografia.', "L'image ne peut pas être ouverte. Prenez une nouvelle photo."],
  'error.unreadable_pdf': ['No se puede abrir el PDF. Elige otro archivo o haz una foto.', 'The PDF cannot be opened. Choose another file or take a photo.', 'Não é possível abrir o PDF. Escolha outro ficheiro ou tire uma fotografia.', 'Le PDF ne peut pas être ouvert. Choisissez un autre fichier ou prenez une photo.'],
  'error.invalid_multipart': ['El envío no ha llegado completo. Inténtalo de nuevo.', 'The upload did not arrive complete. Try again.', 'O envio não chegou completo. Tente novamente.', "L'envoi n'est pas arrivé en entier. Réessayez."],
  'error.consent_required': ['Antes de subir documentos tienes que aceptar el consentimiento.', 'You need to accept the consent before uploading documents.', 'Tem de aceitar o consentimento antes de carregar documentos.', 'Vous devez accepter le consentement avant d’envoyer des documents.'],
  'error.unavailable': ['Ahora mismo no podemos revisar documentos. Inténtalo de nuevo más tarde.', 'We cannot check documents right now. Try again later.', 'De momento não conseguimos verificar documentos. Tente novamente mais tarde.', 'Nous ne pouvons pas vérifier de documents pour le moment. Réessayez plus tard.'],
  // A page asked for while the database or the file store is briefly away (503 with Retry-After, issue #31).
  'error.service_unavailable': ['El servicio no está disponible en este momento. Vuelve a intentarlo en unos segundos.', 'The service is briefly unavailable. Try again in a few seconds.', 'O serviço está momentaneamente indisponível. Tente novamente dentro de alguns segundos.', 'Le service est momentanément indisponible. Réessayez dans quelques secondes.'],
  'error.generic': ['Algo ha fallado. Inténtalo de nuevo.', 'Something went wrong. Try again.', 'Algo correu mal. Tente novamente.', "Une erreur s'est produite. Réessayez."],
};

const INDEX: Record<Language, number> = { es: 0, en: 1, pt: 2, fr: 3 };

/** The text for `key` in `language`, with `{name}` placeholders filled (values are inserted as given: escape at render). */
export function t(language: Language, key: string, params: Record<string, string | number> = {}): string {
  const entry = M[key];
  if (!entry) throw new Error(`no hosted page message ${key}`);
  return entry[INDEX[language] ?? INDEX.es].replace(/\{(\w+)\}/g, (_m, name: string) => (name in params ? String(params[name]) : `{${name}}`));
}

export function hasMessage(key: string): boolean {
  return key in M;
}

export const MESSAGE_KEYS = Object.keys(M);

/** Codes of upload refusals the page explains in words; any other code gets `error.generic` (or `error.unavailable`). */
export const UPLOAD_ERROR_CODES = [
  'missing_file',
  'empty_file',
  'file_too_large',
  'unsupported_file_type',
  'too_many_pages',
  'unreadable_image',
  'unreadable_pdf',
  'invalid_multipart',
  'consent_required',
  'unavailable',
  'generic',
] as const;
export type UploadErrorCode = (typeof UPLOAD_ERROR_CODES)[number];

/** The page's word for an ApiError code from intake or analysis (402 credits, 429, 503 providers: "try later"). */
export function uploadErrorCode(code: string, status: number): UploadErrorCode {
  if ((UPLOAD_ERROR_CODES as readonly string[]).includes(code)) return code as UploadErrorCode;
  if (code === 'request_too_large') return 'file_too_large';
  if (status === 402 || status === 429 || status >= 500) return 'unavailable';
  return 'generic';
}

/** Advice for a quality warning code (unknown codes get a general one). */
export function warningText(language: Language, code: string): string {
  return t(language, hasMessage(`warning.${code}`) ? `warning.${code}` : 'warning.other');
}
