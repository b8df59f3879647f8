/**
 * The two emails of verification links, in the link's locale (es, en, pt, fr): plain text plus a simple HTML twin.
 * The HTML escapes every value it is given and loads nothing remote (no images, fonts or styles from elsewhere).
 *
 * - linkEmail: to the person, "<requester> asks you to verify your documents: open <url> before <date>".
 * - resultsEmail: to the business's `results_email`, a summary of the link WITHOUT document data: only the labels the
 *   business gave, whether each document was accepted, and the dossier's overall verdict. Nothing read from a
 *   document (names, numbers, fields) ever reaches it; its arguments have no place for it.
 */
import type { Language } from '../catalogue/index.ts';

export interface BuiltEmail {
  subject: string;
  text: string;
  html: string;
}

export interface LinkEmailArgs {
  /** Who asks: the account's name. */
  requester: string;
  /** The hosted page's URL (with its secret token). */
  url: string;
  expires_at: string | Date;
  /** The requested documents' labels, in order. */
  documents: { label: string }[];
  locale: Language;
}

export type ResultsOutcome = 'accepted' | 'rejected' | null;
export type DossierVerdictStatus = 'complete_valid' | 'incomplete' | 'invalid' | 'review';

export interface ResultsEmailArgs {
  requester: string;
  reference: string | null;
  link_id: string;
  /** How the link ended. */
  status: 'completed' | 'expired' | 'cancelled';
  /** The dossier's overall verdict, or null when there is none. */
  dossier_verdict_status: DossierVerdictStatus | null;
  /** `accepted`: a good attempt counts; `rejected`: attempts ran out without one; null: nothing was accepted or it was never sent. */
  documents: { label: string; outcome: ResultsOutcome }[];
  /** When it ended (completed_at, or the expiry or cancellation time). */
  completed_at: string | Date;
  locale: Language;
}

type Texts = {
  link: {
    subject: string;
    greeting: string;
    intro: string;
    open: string;
    button: string;
    expires: string;
    ignore: string;
    footer: string;
  };
  results: {
    subject: Record<ResultsEmailArgs['status'], string>;
    intro: string;
    link: string;
    reference: string;
    status: string;
    statusValue: Record<ResultsEmailArgs['status'], string>;
    verdict: string;
    verdictValue: Record<DossierVerdictStatus | 'none', string>;
    documents: string;
    outcome: Record<'accepted' | 'rejected' | 'none', string>;
    footer: string;
  };
  /** Intl locale for dates. */
  dateLocale: string;
  /** Punctuation before a list or a value: French puts a space before the colon. */
  colon: string;
};

const TEXTS: Record<Language, Texts> = {
  es: {
    link: {
      subject: '{requester} te pide verificar tus documentos',
      greeting: 'Hola:',
      intro: '{requester} te pide que envíes estos documentos para verificarlos:',
      open: 'Abre este enlace, mejor desde el móvil, para hacer las fotos o subir los archivos:',
      button: 'Empezar la verificación',
      expires: 'El enlace funciona hasta el {date}. Es personal: no lo reenvíes.',
      ignore: 'Si no esperabas este correo, puedes ignorarlo.',
      footer: 'Enviado por Cotejo en nombre de {requester}.',
    },
    results: {
      subject: { completed: 'Verificación completada: {ref}', expired: 'Enlace de verificación caducado: {ref}', cancelled: 'Enlace de verificación cancelado: {ref}' },
      intro: 'Resumen de la verificación solicitada por {requester}.',
      link: 'Enlace de verificación',
      reference: 'Referencia',
      status: 'Estado',
      statusValue: { completed: 'completado', expired: 'caducado', cancelled: 'cancelado' },
      verdict: 'Resultado global',
      verdictValue: { complete_valid: 'completo y válido', incomplete: 'incompleto', invalid: 'no válido', review: 'necesita revisión humana', none: 'sin veredicto' },
      documents: 'Documentos',
      outcome: { accepted: 'aceptado', rejected: 'no aceptado (sin intentos restantes)', none: 'no recibido' },
      footer: 'Este resumen no contiene datos de los documentos. Los detalles están en la API: GET /v1/verification-links/{link_id}',
    },
    dateLocale: 'es-ES',
    colon: ':',
  },
  en: {
    link: {
      subject: '{requester} asks you to verify your documents',
      greeting: 'Hello,',
      intro: '{requester} asks you to send these documents for verification:',
      open: 'Open this link, preferably on your phone, to take the photos or upload the files:',
      button: 'Start the verification',
      expires: 'The link works until {date}. It is personal: do not forward it.',
      ignore: 'If you were not expecting this email, you can ignore it.',
      footer: 'Sent by Cotejo on behalf of {requester}.',
    },
    results: {
      subject: { completed: 'Verification completed: {ref}', expired: 'Verification link expired: {ref}', cancelled: 'Verification link cancelled: {ref}' },
      intro: 'Summary of the verification requested by {requester}.',
      link: 'Verification link',
      reference: 'Reference',
      status: 'Status',
      statusValue: { completed: 'completed', expired: 'expired', cancelled: 'cancelled' },
      verdict: 'Overall result',
      verdictValue: { complete_valid: 'complete and valid', incomplete: 'incomplete', invalid: 'not valid', review: 'needs human review', none: 'no verdict' },
      documents: 'Documents',
      outcome: { accepted: 'accepted', rejected: 'not accepted (no attempts left)', none: 'not received' },
      footer: 'This summary holds no document data. The details are in the API: GET /v1/verification-links/{link_id}',
    },
    dateLocale: 'en-GB',
    colon: ':',
  },
  pt: {
    link: {
      subject: '{requester} pede-lhe que verifique os seus documentos',
      greeting: 'Olá,',
      intro: '{requester} pede-lhe que envie estes documentos para verificação:',
      open: 'Abra este link, de preferência no telemóvel, para tirar as fotografias ou carregar os ficheiros:',
      button: 'Iniciar a verificação',
      expires: 'O link funciona até {date}. É pessoal: não o reencaminhe.',
      ignore: 'Se não estava à espera deste email, pode ignorá-lo.',
      footer: 'Enviado por Cotejo em nome de {requester}.',
    },
    results: {
      subject: { completed: 'Verificação concluída: {ref}', expired: 'Link de verificação expirado: {ref}', cancelled: 'Link de verificação cancelado: {ref}' },
      intro: 'Resumo da verificação pedida por {requester}.',
      link: 'Link de verificação',
      reference: 'Referência',
      status: 'Estado',
      statusValue: { completed: 'concluído', expired: 'expirado', cancelled: 'cancelado' },
      verdict: 'Resultado global',
      verdictValue: { complete_valid: 'completo e válido', incomplete: 'incompleto', invalid: 'não válido', review: 'precisa de revisão humana', none: 'sem veredicto' },
      documents: 'Documentos',
      outcome: { accepted: 'aceite', rejected: 'não aceite (sem tentativas restantes)', none: 'não recebido' },
      footer: 'Este resumo não contém dados dos documentos. Os detalhes estão na API: GET /v1/verification-links/{link_id}',
    },
    dateLocale: 'pt-PT',
    colon: ':',
  },
  fr: {
    link: {
      subject: '{requester} vous demande de vérifier vos documents',
      greeting: 'Bonjour,',
      intro: "{requester} vous demande d'envoyer ces documents pour vérification :",
      open: 'Ouvrez ce lien, de préférence sur votre téléphone, pour prendre les photos ou envoyer les fichiers :',
      button: 'Commencer la vérification',
      expires: "Le lien est valable jusqu'au {date}. Il est personnel : ne le transférez pas.",
      ignore: "Si vous n'attendiez pas ce message, vous pouvez l'ignorer.",
      footer: 'Envoyé par Cotejo pour le compte de {requester}.',
    },
    results: {
      subject: { completed: 'Vérification terminée : {ref}', expired: 'Lien de vérification expiré : {ref}', cancelled: 'Lien de vérification annulé : {ref}' },
      intro: 'Résumé de la vérification demandée par {requester}.',
      link: 'Lien de vérification',
      reference: 'Référence',
      status: 'Statut',
      statusValue: { completed: 'terminé', expired: 'expiré', cancelled: 'annulé' },
      verdict: 'Résultat global',
      verdictValue: { complete_valid: 'complet et valide', incomplete: 'incomplet', invalid: 'non valide', review: 'nécessite une vérification humaine', none: 'sans verdict' },
      documents: 'Documents',
      outcome: { accepted: 'accepté', rejected: 'refusé (plus aucune tentative)', none: 'non reçu' },
      footer: "Ce résumé ne contient aucune donnée des documents. Le détail est dans l'API : GET /v1/verification-links/{link_id}",
    },
    dateLocale: 'fr-FR',
    colon: ' :',
  },
};

function textsOf(locale: Language): Texts {
  const t = TEXTS[locale];
  if (!t) throw new Error(`no email texts for locale ${String(locale)}`);
  return t;
}

/** One line of text: control characters (CR and LF above all) become spaces, runs of spaces one. */
function oneLine(value: string, max = 300): string {
  const s = String(value).replace(/[\u0000-\u001f\u007f\u2028\u2029]+/g, ' ').replace(/\s+/g, ' ').trim();
  return s.length > max ? `${s.slice(0, max - 1)}…` : s;
}

/** Escapes text for HTML content and attribute values (double-quoted). */
export function escapeHtml(value: string): string {
  return value.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
}

function fill(template: string, params: Record<string, string>): string {
  return template.replace(/\{(\w+)\}/g, (_m, name: string) => (name in params ? params[name] : `{${name}}`));
}

/** `27 November 2026 at 10:00 UTC` in the locale's words; always UTC, said so (the reader's zone is unknown). */
export function formatEmailDate(value: string | Date, locale: Language): string {
  const d = new Date(value);
  if (Number.isNaN(d.getTime())) throw new Error('email date is not a valid date');
  const fmt = new Intl.DateTimeFormat(textsOf(locale).dateLocale, { dateStyle: 'long', timeStyle: 'short', timeZone: 'UTC' });
  return `${fmt.format(d)} UTC`;
}

/** The URL the person opens: only http(s), so that the HTML link cannot be a `javascript:` one. */
function checkedUrl(url: string): string {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    throw new Error('the link email needs an absolute URL');
  }
  if (u.protocol !== 'https:' && u.protocol !== 'http:') throw new Error('the link email needs an http(s) URL');
  return u.toString();
}

function page(locale: Language, title: string, body: string): string {
  // Inline styles only: mail clients drop <style> blocks and remote sheets, and nothing remote is wanted anyway.
  return (
    `<!DOCTYPE html>\n<html lang="${locale}">\n<head>\n<meta charset="utf-8">\n<meta name="viewport" content="width=device-width, initial-scale=1">\n` +
    `<title>${escapeHtml(title)}</title>\n</head>\n` +
    `<body style="margin:0;padding:24px;background:#ffffff;color:#1f2328;font-family:-apple-system,'Segoe UI',Roboto,Helvetica,Arial,sans-serif;font-size:16px;line-height:1.5">\n` +
    `<div style="max-width:560px;margin:0 auto">\n${body}</div>\n</body>\n</html>\n`
  );
}

/** The email that sends a person their verification link. */
export function linkEmail(args: LinkEmailArgs): BuiltEmail {
  const t = textsOf(args.locale);
  const requester = oneLine(args.requester, 120) || 'Cotejo';
  const url = checkedUrl(args.url);
  const date = formatEmailDate(args.expires_at, args.locale);
  const labels = args.documents.map((d) => oneLine(d.label, 120)).filter((l) => l !== '');
  const p = { requester, date };

  const subject = oneLine(fill(t.link.subject, p), 200);
  const text =
    [
      t.link.greeting,
      '',
      fill(t.link.intro, p),
      ...labels.map((l) => `  - ${l}`),
      '',
      t.link.open,
      url,
      '',
      fill(t.link.expires, p),
      t.link.ignore,
      '',
      '-- ',
      fill(t.link.footer, p),
    ].join('\n') + '\n';

  const e = (s: string) => escapeHtml(s);
  const html = page(
    args.locale,
    subject,
    `<p>${e(t.link.greeting)}</p>\n` +
      `<p>${e(fill(t.link.intro, p))}</p>\n` +
      `<ul>\n${labels.map((l) => `<li>${e(l)}</li>\n`).join('')}</ul>\n` +
      `<p>${e(t.link.open)}</p>\n` +
      `<p><a href="${e(url)}" style="display:inline-block;padding:12px 20px;background:#0b57d0;color:#ffffff;text-decoration:none;border-radius:6px;font-weight:600">${e(t.link.button)}</a></p>\n` +
      `<p style="word-break:break-all;font-size:14px"><a href="${e(url)}" style="color:#0b57d0">${e(url)}</a></p>\n` +
      `<p>${e(fill(t.link.expires, p))}</p>\n` +
      `<p style="color:#57606a;font-size:14px">${e(t.link.ignore)}<br>${e(fill(t.link.footer, p))}</p>\n`,
  );
  return { subject, text, html };
}

/** The summary sent to `results_email` when a link ends: no document data, only labels, outcomes and the verdict. */
export function resultsEmail(args: ResultsEmailArgs): BuiltEmail {
  const t = textsOf(args.locale);
  const r = t.results;
  const requester = oneLine(args.requester, 120) || 'Cotejo';
  const linkId = oneLine(args.link_id, 60);
  const reference = args.reference === null ? null : oneLine(args.reference, 200) || null;
  const date = formatEmailDate(args.completed_at, args.locale);
  const p = { requester, link_id: linkId, ref: reference ?? linkId };
  const statusValue = `${r.statusValue[args.status]} (${date})`;
  const verdictValue = r.verdictValue[args.dossier_verdict_status ?? 'none'];
  const docs = args.documents.map((d) => ({ label: oneLine(d.label, 120), outcome: r.outcome[d.outcome ?? 'none'] }));
  const c = t.colon;

  const subject = oneLine(fill(r.subject[args.status], p), 200);
  const rows: [string, string][] = [[r.link, linkId], ...(reference ? [[r.reference, reference] as [string, string]] : []), [r.status, statusValue], [r.verdict, verdictValue]];
  const text =
    [
      fill(r.intro, p),
      '',
      ...rows.map(([k, v]) => `${k}${c} ${v}`),
      '',
      `${r.documents}${c}`,
      ...docs.map((d) => `  - ${d.label}${c} ${d.outcome}`),
      '',
      '-- ',
      fill(r.footer, p),
    ].join('\n') + '\n';

  const e = (s: string) => escapeHtml(s);
  const html = page(
    args.locale,
    subject,
    `<p>${e(fill(r.intro, p))}</p>\n` +
      `<table style="border-collapse:collapse" role="presentation">\n` +
      rows.map(([k, v]) => `<tr><th scope="row" style="text-align:left;padding:4px 16px 4px 0;font-weight:600">${e(k)}</th><td style="padding:4px 0">${e(v)}</td></tr>\n`).join('') +
      `</table>\n` +
      `<h2 style="font-size:16px;margin:24px 0 8px">${e(r.documents)}</h2>\n` +
      `<ul>\n${docs.map((d) => `<li>${e(d.label)}${e(c)} ${e(d.outcome)}</li>\n`).join('')}</ul>\n` +
      `<p style="color:#57606a;font-size:14px">${e(fill(r.footer, p))}</p>\n`,
  );
  return { subject, text, html };
}
