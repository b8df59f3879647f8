// The API's enum values in a person's words (#29 item 1): what the console shows for a link, document, dossier,
// analysis or event status, a verdict, a severity or why an original is not kept. [es, en, pt, fr]; an unknown value
// (a newer API value) is shown as it is.
import { labelOf } from '../../catalogue/index.ts';
import type { DashboardLanguage } from './members.ts';

type Entry = readonly [es: string, en: string, pt: string, fr: string];

const W: Record<string, Entry> = {
  'link.pending': ['Pendiente', 'Pending', 'Pendente', 'En attente'],
  'link.in_progress': ['En curso', 'In progress', 'Em curso', 'En cours'],
  'link.completed': ['Completado', 'Completed', 'Concluída', 'Terminé'],
  'link.expired': ['Caducado', 'Expired', 'Expirada', 'Expiré'],
  'link.cancelled': ['Cancelado', 'Cancelled', 'Cancelada', 'Annulé'],
  'document.pending': ['Pendiente', 'Pending', 'Pendente', 'En attente'],
  'document.processing': ['Procesando', 'Processing', 'A processar', 'En traitement'],
  'document.completed': ['Completado', 'Completed', 'Concluído', 'Terminé'],
  'document.failed': ['Fallido', 'Failed', 'Falhado', 'Échoué'],
  'analysis.queued': ['En cola', 'Queued', 'Em fila', 'En file d’attente'],
  'analysis.processing': ['Procesando', 'Processing', 'A processar', 'En traitement'],
  'analysis.completed': ['Completado', 'Completed', 'Concluída', 'Terminée'],
  'analysis.failed': ['Fallido', 'Failed', 'Falhada', 'Échouée'],
  'verdict.valid': ['Válido', 'Valid', 'Válido', 'Valide'],
  'verdict.invalid': ['No válido', 'Invalid', 'Inválido', 'Non valide'],
  'verdict.review': ['A revisar', 'To review', 'A rever', 'À vérifier'],
  'dossier.complete_valid': ['Completo y válido', 'Complete and valid', 'Completo e válido', 'Complet et valide'],
  'dossier.incomplete': ['Incompleto', 'Incomplete', 'Incompleto', 'Incomplet'],
  'dossier.invalid': ['No válido', 'Invalid', 'Inválido', 'Non valide'],
  'dossier.review': ['A revisar', 'To review', 'A rever', 'À vérifier'],
  'severity.info': ['Información', 'Information', 'Informação', 'Information'],
  'severity.warning': ['Aviso', 'Warning', 'Aviso', 'Avertissement'],
  'severity.error': ['Error', 'Error', 'Erro', 'Erreur'],
  'event.created': ['Creado', 'Created', 'Criado', 'Créé'],
  'event.sent': ['Enviado por correo', 'Emailed', 'Enviado por e-mail', 'Envoyé par e-mail'],
  'event.opened': ['Abierto', 'Opened', 'Aberto', 'Ouvert'],
  'event.consent_accepted': ['Consentimiento aceptado', 'Consent accepted', 'Consentimento aceite', 'Consentement accepté'],
  'event.document_uploaded': ['Documento subido', 'Document uploaded', 'Documento carregado', 'Document envoyé'],
  'event.document_accepted': ['Documento aceptado', 'Document accepted', 'Documento aceite', 'Document accepté'],
  'event.document_rejected': ['Documento rechazado', 'Document rejected', 'Documento rejeitado', 'Document refusé'],
  'event.completed': ['Completado', 'Completed', 'Concluído', 'Terminé'],
  'event.expired': ['Caducado', 'Expired', 'Expirado', 'Expiré'],
  'event.cancelled': ['Cancelado', 'Cancelled', 'Cancelado', 'Annulé'],
  'event.results_sent': ['Resultados enviados', 'Results sent', 'Resultados enviados', 'Résultats envoyés'],
  'kept.storage_none': ['no se pidió conservarlo', 'it was not to be kept', 'não foi pedida a sua conservação', 'sa conservation n’était pas demandée'],
  'kept.storage_temporary': ['su plazo de conservación terminó', 'its keeping period ended', 'o seu prazo de conservação terminou', 'sa durée de conservation est écoulée'],
  'kept.storage_persistent': ['se eliminó', 'it was deleted', 'foi eliminado', 'il a été supprimé'],
  'kept.review_max_days_elapsed': ['pasó el plazo máximo de revisión', 'the review period ran out', 'passou o prazo máximo de revisão', 'le délai de révision est écoulé'],
  'kept.deleted_after_decision': ['se eliminó tras la decisión', 'it was deleted after the decision', 'foi eliminado após a decisão', 'il a été supprimé après la décision'],
  'kept.review_not_required': ['no hacía falta revisarlo', 'no review was needed', 'não era preciso revê-lo', 'aucune révision n’était nécessaire'],
  'kept.pending_result': ['el análisis aún no ha terminado', 'the analysis has not finished yet', 'a análise ainda não terminou', 'l’analyse n’est pas encore terminée'],
};

const INDEX: Record<DashboardLanguage, number> = { es: 0, en: 1, pt: 2, fr: 3 };

/** `value` of the enum `group` in words, in `language`; the value itself when it has none. */
export function word(language: DashboardLanguage, group: 'link' | 'document' | 'analysis' | 'verdict' | 'dossier' | 'severity' | 'event' | 'kept', value: string): string {
  return W[`${group}.${value}`]?.[INDEX[language]] ?? value;
}

/** A document type by its catalogue name in `language` (`es_dni` is "DNI español"...); an unknown type as it is. */
export function typeName(language: DashboardLanguage, type: string | null | undefined): string {
  return type ? labelOf(type, language) : '';
}
