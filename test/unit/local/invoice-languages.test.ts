/**
 * Invoices in languages the rules had no words for (issue #28: the held-out set has ten languages): Turkish,
 * Indonesian, Malay, Vietnamese and Russian. Synthetic layouts with word boxes, as the invoices print them: the type
 * from the text, the total, the VAT, the date (Russian and Turkish month names, Vietnamese `Ngày … tháng … năm …`) and
 * the number.
 */
import { describe, expect, it } from 'vitest';
import { getEntry } from '../../../server/src/catalogue/index.ts';
import { classifyText } from '../../../server/src/providers/local/text/classify.ts';
import { extractFields } from '../../../server/src/providers/local/text/extract.ts';
import { findDates } from '../../../server/src/providers/local/text/normalize.ts';
import { page } from './support-text.ts';

const invoice = getEntry('invoice')!;
const read = (rows: Parameters<typeof page>[0]) => {
  const lines = page(rows);
  const type = classifyText(lines).candidates[0]?.type ?? null;
  const f = extractFields(invoice, lines, []);
  const v = (k: string) => f[k]?.value ?? null;
  return { type, total: v('total_amount'), tax: v('tax_amount'), date: v('issue_date'), number: v('invoice_number') };
};

describe('invoices in Turkish, Indonesian, Malay, Vietnamese and Russian', () => {
  it('Turkish e-Fatura: Fatura No, Fatura Tarihi, KDV, Ödenecek Tutar', () => {
    expect(read([
      [[0.05, 'ANADOLU TEKSTİL A.Ş.'], [0.7, 'e-FATURA']],
      [[0.05, 'Vergi Dairesi: Kadıköy'], [0.6, 'Fatura No:'], [0.8, 'ABC2026000000123']],
      [[0.6, 'Fatura Tarihi:'], [0.8, '15.03.2026']],
      [[0.05, 'Mal Hizmet'], [0.6, 'Mal Hizmet Toplam Tutarı'], [0.85, '1.000,00 TL']],
      [[0.6, 'Hesaplanan KDV (%20)'], [0.85, '200,00 TL']],
      [[0.6, 'Ödenecek Tutar'], [0.85, '1.200,00 TL']],
    ])).toEqual({ type: 'invoice', total: 1200, tax: 200, date: '2026-03-15', number: 'ABC2026000000123' });
  });
  it('Indonesian faktur: No. Faktur, Tanggal, PPN, Total Bayar', () => {
    expect(read([
      [[0.05, 'PT MAJU JAYA'], [0.7, 'FAKTUR']],
      [[0.05, 'NPWP: 01.234.567.8-901.000'], [0.6, 'No. Faktur:'], [0.8, 'INV/2026/03/0042']],
      [[0.6, 'Tanggal:'], [0.8, '15 Maret 2026']],
      [[0.6, 'Dasar Pengenaan Pajak'], [0.85, 'Rp 1.000.000']],
      [[0.6, 'PPN 11%'], [0.85, 'Rp 110.000']],
      [[0.6, 'Total Bayar'], [0.85, 'Rp 1.110.000']],
    ])).toEqual({ type: 'invoice', total: 1110000, tax: 110000, date: '2026-03-15', number: 'INV/2026/03/0042' });
  });
  it('Malay invois: No. Invois, Tarikh, SST, Jumlah Perlu Dibayar', () => {
    expect(read([
      [[0.05, 'SYARIKAT MAJU SDN BHD'], [0.7, 'INVOIS']],
      [[0.6, 'No. Invois:'], [0.8, 'SM-2026-0042']],
      [[0.6, 'Tarikh:'], [0.8, '15 Mac 2026']],
      [[0.6, 'SST 8%'], [0.85, 'RM 80.00']],
      [[0.6, 'Jumlah Perlu Dibayar'], [0.85, 'RM 1,080.00']],
    ])).toEqual({ type: 'invoice', total: 1080, tax: 80, date: '2026-03-15', number: 'SM-2026-0042' });
  });
  it('Vietnamese hóa đơn GTGT: Số hóa đơn, the date in words, Tiền thuế GTGT, Tổng cộng tiền thanh toán', () => {
    expect(read([
      [[0.25, 'HÓA ĐƠN GIÁ TRỊ GIA TĂNG']],
      [[0.3, 'Ngày 15 tháng 03 năm 2026'], [0.7, 'Số hóa đơn: 0000123']],
      [[0.05, 'Mã số thuế: 0101234567']],
      [[0.5, 'Cộng tiền hàng:'], [0.85, '1.000.000']],
      [[0.5, 'Tiền thuế GTGT:'], [0.85, '100.000']],
      [[0.5, 'Tổng cộng tiền thanh toán:'], [0.85, '1.100.000']],
    ])).toEqual({ type: 'invoice', total: 1100000, tax: 100000, date: '2026-03-15', number: '0000123' });
  });
  it('Russian счёт-фактура: its number and date in words, НДС, Всего к оплате', () => {
    expect(read([
      [[0.2, 'Счёт-фактура № 123 от 15 марта 2026 г.']],
      [[0.05, 'Поставщик: ООО «Ромашка»'], [0.6, 'ИНН 7707083893']],
      [[0.05, 'Покупатель: АО «Василёк»']],
      [[0.5, 'Итого без НДС:'], [0.85, '1 000,00']],
      [[0.5, 'В том числе НДС:'], [0.85, '200,00']],
      [[0.5, 'Всего к оплате:'], [0.85, '1 200,00']],
    ])).toEqual({ type: 'invoice', total: 1200, tax: 200, date: '2026-03-15', number: '123' });
  });
  it('month names of these languages, and the Vietnamese order, in dates', () => {
    const d = (s: string) => findDates(s, true).map((x) => x.value);
    expect(d('15 mart 2026')).toEqual(['2026-03-15']);
    expect(d('1 agustus 2025')).toEqual(['2025-08-01']);
    expect(d('3 disember 2025')).toEqual(['2025-12-03']);
    expect(d('9 маи 2026 г.')).toEqual(['2026-05-09']);
    expect(d('ngay 05 thang 11 nam 2025')).toEqual(['2025-11-05']);
  });
});
