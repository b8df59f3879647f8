/**
 * Rules learnt from a study set of receipt photos outside the development set (issue #28, h-rcpt; sources in
 * bench/results/invoices-receipts.md): US restaurant card slips with tip lines, European till receipts (Italian,
 * German, British), PP-OCR's glued words. Synthetic till layouts, hand-built with word boxes.
 */
import { describe, expect, it } from 'vitest';
import { getEntry } from '../../../server/src/catalogue/index.ts';
import { classifyText } from '../../../server/src/providers/local/text/classify.ts';
import { extractFields } from '../../../server/src/providers/local/text/extract.ts';
import { prepareLines } from '../../../server/src/providers/local/text/normalize.ts';
import type { TextLine } from '../../../server/src/providers/local/types.ts';
import { page } from './support-text.ts';

/** A till line: a label at the left margin and its amount in the price column. */
const row = (label: string, amount?: string): Array<[number, string]> => (amount === undefined ? [[0.1, label]] : [[0.1, label], [0.7, amount]]);

/** Reads lines as the reader does: the text classifier's type, then that type's fields. */
function read(lines: TextLine[]): { type: string; total: number | null; date: string | null } {
  const cls = classifyText(lines);
  const type = cls.candidates[0].type;
  const fields = extractFields(getEntry(type)!, lines, [], { language: cls.language?.code, country: cls.country });
  const total = (fields.amount ?? fields.total_amount)?.value;
  const date = (fields.payment_date ?? fields.issue_date)?.value;
  return { type, total: typeof total === 'number' ? total : null, date: typeof date === 'string' ? date : null };
}

describe('Italian till receipts (scontrino)', () => {
  it('takes `TOTALE EURO` as the total, `CONTANTE` as the cash handed over', () => {
    const r = read(page([
      row('RISTORANTE DEMO S.R.L.'),
      row('PIAZZA DEL DUOMO 1 MILANO'),
      row('COPERTO', '5,00'),
      row('TAGLIATELLE AL RAGU', '12,00'),
      row('ACQUA', '2,50'),
      row('CAFFE', '1,50'),
      row('TOTALE EURO', '21,00'),
      row('CONTANTE', '21,00'),
      row('OPERATORE: NESSUNO'),
      row('14-03-2019 20:15 SF'),
    ]));
    expect(r.type).toBe('payment_receipt');
    expect(r.total).toBe(21);
    expect(r.date).toBe('2019-03-14');
  });
  it('takes `TOTALE COMPLESSIVO` with no cash line, not `TOTALE IVA`', () => {
    const r = read(page([
      row('SUPERMERCATO DEMO S.P.A.'),
      row('PANE', '2,10'),
      row('LATTE', '1,35'),
      row('TOTALE IVA', '0,31'),
      row('TOTALE COMPLESSIVO', '3,45'),
      row('PAGAMENTO CARTA DI CREDITO', '3,45'),
      row('03.02.2024 10:00 DOC.N.1111-0001 CASSA N.2'),
    ]));
    expect(r.total).toBe(3.45);
  });
});

describe('US card slips and their tip lines', () => {
  /** A restaurant's card slip: the sale, then the tip left to fill in by hand. */
  const slip = (tips: Array<Array<[number, string]>>) => page([
    row('DEMO PIZZA'),
    row('100 Main St Springfield CA'),
    row('04/17/2024 07:12:05 PM'),
    row('*** SALE ***'),
    row('Card Issue', 'Visa'),
    row('Account No.', 'XXXXXXXXXXXX1234'),
    row('Application Label:', 'VISA CREDIT'),
    row('AID:', 'A0000000031010'),
    row('Amount:', '$5.76'),
    ...tips,
    row('I agree to pay the above'),
    row('total amount according to the'),
    row('card issuer agreement.'),
    row('Merchant Copy'),
  ]);
  it('takes the `Amount:` charged, not a row of totals under suggested tip rates', () => {
    const r = read(slip([
      [[0.05, 'Gratuity:'], [0.3, '15%'], [0.45, '18%'], [0.6, '20%']],
      [[0.05, '+Amount:'], [0.3, '0.86'], [0.45, '1.04'], [0.6, '1.15']],
      [[0.05, '=Total:'], [0.3, '6.62'], [0.45, '6.80'], [0.6, '6.91']],
    ]));
    expect(r.type).toBe('payment_receipt');
    expect(r.total).toBe(5.76);
    expect(r.date).toBe('2024-04-17');
  });
  it('never takes a suggested tip line (`+3%: (Tip $4.08 Total $152.96)`) for the total', () => {
    const r = read(page([
      row('DEMO TRATTORIA'),
      row('Server: Alex', 'Table 12'),
      row('Ordered:', '3/14/24 7:05 PM'),
      row('1 Kale Caesar', '$12.95'),
      row('1 Deep-Cheese BYO', '$19.95'),
      row('Subtotal', '$32.90'),
      row('AMERICAN EXPRESS', 'xxxxxxxx1234'),
      row('Transaction Type', 'Sale'),
      row('Suggested Additional Tip:'),
      row('+ 2%: (Tip $0.66 Total $33.56)'),
      row('+ 3%: (Tip $0.99 Total $33.89)'),
      row('Tip percentages are based on the check'),
    ]));
    expect(r.total).not.toBe(33.89);
    expect(r.total).not.toBe(33.56);
  });
  it('still takes the total printed after a tip line', () => {
    const r = read(page([
      row('DEMO BISTRO'),
      row('Server: Sam', 'Table 3'),
      row('Ordered:', '5/02/24 8:15 PM'),
      row('Gnocchi Special', '$30.00'),
      row('Dessert Special', '$12.00'),
      row('Subtotal', '$42.00'),
      row('Tax', '$3.26'),
      row('Tip', '$9.00'),
      row('Total', '$54.26'),
      row('VISA CREDIT', 'xxxxxxxx1234'),
    ]));
    expect(r.total).toBe(54.26);
  });
});

describe("PP-OCR's glued words on till receipts", () => {
  it('parts a label glued to its amount (`CASH242.00`): the cash handed over is the total', () => {
    const r = read(page([
      row('DEMO DEPARTMENTAL STORE'),
      row('REG 11-04-2016 06:10 PM 000012'),
      row('KETCHUP', '150.00'),
      row('MAGGI', '45.00'),
      row('SOAP', '47.00'),
      row('3 Nc'),
      row('CASH242.00'),
      row('THANKS FOR YOUR VISIT'),
    ]));
    expect(r.total).toBe(242);
  });
  it('keeps a code of letters and digits whole (`AID A0000000031010`, `SR12`)', () => {
    const lines = prepareLines(page([row('AID A0000000031010 SR12 TOTAL12.50')]));
    expect(lines[0].text).toBe('AID A0000000031010 SR12 TOTAL 12.50');
  });
});

describe('German till receipts (Kassenbon) photographed askew', () => {
  it("takes the card payment when the SUMME line carries an item's price and tax class (`SUMME 1,55 A`)", () => {
    const r = read(page([
      row('DEMO MARKT'),
      row('Hauptstrasse 1 12345 Musterstadt'),
      row('UID Nr.: DE123456789'),
      row('TOMATE DIVINO', '6,95 B'),
      row('JA! MARKENBUTTER', '19,95 B'),
      row('NIVEA', '2,70 B'),
      row('SUMME', '1,55 A'),
      row('Geg. EC-Cash EUR', '31,15'),
      row('Datum: 12.05.2022 Uhrzeit: 11:02:03 Uhr'),
      row('Kartenzahlung girocard'),
    ]));
    expect(r.type).toBe('payment_receipt');
    expect(r.total).toBe(31.15);
    expect(r.date).toBe('2022-05-12');
  });
  it('keeps a SUMME line read whole when the card paid the same', () => {
    const r = read(page([
      row('DEMO MARKT'),
      row('Hauptstrasse 1 12345 Musterstadt'),
      row('ZIEGENFRISCHKAES', '2,19 B'),
      row('WURZELBROT HELL', '1,19 B'),
      row('SUMME EUR', '3,38'),
      row('Geg. EC-Cash EUR', '3,38'),
      row('Datum: 13.05.2022 Uhrzeit: 09:41:00 Uhr'),
    ]));
    expect(r.total).toBe(3.38);
  });
});

describe('British receipts whose pound sign OCR lost', () => {
  const ticket = (where: string) => read(page([
    row('DEMO RAIL'),
    row('You were served by Sam'),
    row('ANYTIME DAY TC', '36.90'),
    row('using the Railcard for the day'),
    row(where),
    row('Travelcard Zones 1-6'),
    row('1 Adult Ticket no: 1234'),
    row('Thank you for travelling with us'),
    row('BALANCE DUE', '36.90'),
    row('VISA', '36.90'),
    row('1234A56B78C9012 3456 7890 08:08 12-09-19'),
  ]));
  it('reads day first after a London address', () => {
    expect(ticket('Reading or Reading West - London').date).toBe('2019-09-12');
  });
  it('reads day first after a UK postcode', () => {
    expect(ticket('Demo Services AB1 2CD').date).toBe('2019-09-12');
  });
  it('still reads month first with no British cue', () => {
    expect(ticket('Reading or Reading West').date).toBe('2019-12-09');
  });
});

describe('a dollar sign OCR read as a 1', () => {
  const store = (total: string) => read(page([
    row('DEMO STORE'),
    row('SPRINGFIELD - 555-010-0000'),
    row('06/03/2020 02:10 PM'),
    row('$25 GIFT CARD A N', '$25.00'),
    row('$25 GIFT CARD B N', '$25.00'),
    row('SUBTOTAL', '$50.00'),
    row('NO TAX', '$0.00'),
    row('TOTAL', total),
    row('*1234 AMEX CHARGE', '$50.00'),
    row('NO RETURN OR EXCHANGE'),
  ]));
  it('takes `TOTAL 150.00` for $50.00 when the subtotal and the charge print $50.00', () => {
    expect(store('150.00').total).toBe(50);
  });
  it('keeps a total printed with its dollar sign', () => {
    expect(store('$50.00').total).toBe(50);
  });
});

describe("a till's date glued to the numbers around it", () => {
  const market = (stamp: string) => read(page([
    row('DEMO MARKET'),
    row('ELECTROLYTE WATER', '$1.19 FT'),
    row('BICOLOR CORN', '$1.00 FT'),
    row('Subtotal:', '$2.19'),
    row('Tax: 2.25%', '$0.05'),
    row('Total:', '$2.24'),
    row('RETURNS: All returns require a receipt.'),
    row(stamp),
    row('Thanks for shopping with us'),
  ]));
  it('reads `4402503309/14/202211:05 AM` (store, register, date, time) as 14 September 2022', () => {
    expect(market('4402503309/14/202211:05 AM').date).toBe('2022-09-14');
  });
  it('reads nothing from a run of digits with no time after it', () => {
    expect(market('4402503309/14/20221105').date).toBeNull();
  });
});

describe('till receipts of northern and eastern Europe', () => {
  it('reads a Dutch kassabon: `Te betalen`, `Contant`, `Wisselgeld`', () => {
    const r = read(page([
      row('BAKKERIJ DEMO'),
      row('Dorpsstraat 12 Utrecht'),
      row('KASSABON'),
      row('2 x Krentenbol', '3,10'),
      row('Volkorenbrood', '3,45'),
      row('BTW 9%', '0,54'),
      row('Te betalen', '6,55'),
      row('Contant', '10,00'),
      row('Wisselgeld', '3,45'),
      row('15-04-2022 10:52 Kassa 2'),
    ]));
    expect(r.type).toBe('payment_receipt');
    expect(r.total).toBe(6.55);
    expect(r.date).toBe('2022-04-15');
  });
  it('reads a Polish paragon: `SUMA PLN`, not `SUMA PTU`; `Gotówka` and `Reszta`', () => {
    const r = read(page([
      row('SKLEP DEMO SP. Z O.O.'),
      row('NIP 525-000-00-00'),
      row('PARAGON FISKALNY'),
      row('Chleb 1 x 4,50', '4,50 A'),
      row('Mleko 2 x 3,20', '6,40 C'),
      row('SPRZEDAZ OPODATK. A', '4,50'),
      row('SUMA PTU', '0,66'),
      row('SUMA PLN', '10,90'),
      row('Gotówka', '20,00'),
      row('Reszta', '9,10'),
      row('2024-03-14 12:05'),
    ]));
    expect(r.total).toBe(10.9);
    expect(r.date).toBe('2024-03-14');
  });
  it('reads a Swedish kvitto as a receipt: `Att betala`, not `Summa moms`; `Kontant` and `Växel`', () => {
    const r = read(page([
      row('KAFE DEMO AB'),
      row('Storgatan 1 Stockholm'),
      row('KVITTO'),
      row('Kaffe', '35,00'),
      row('Kanelbulle', '30,00'),
      row('Summa moms', '6,96'),
      row('Att betala', '65,00'),
      row('Kontant', '100,00'),
      row('Växel', '35,00'),
      row('2023-05-23 14:02 Kassa 1'),
    ]));
    expect(r.type).toBe('payment_receipt');
    expect(r.total).toBe(65);
  });
});
