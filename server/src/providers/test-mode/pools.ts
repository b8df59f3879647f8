/**
 * Name, place and wording pools of the simulated readings, by locale. Plausible, not real people: combinations of
 * the most common given names and surnames of each country.
 */

export type Locale = 'es' | 'pt' | 'br' | 'fr' | 'it' | 'us' | 'en' | 'de' | 'nl' | 'pl' | 'ro' | 'se';
export type Lang = 'es' | 'pt' | 'fr' | 'en';

export interface NamePool {
  male: readonly string[];
  female: readonly string[];
  surnames: readonly string[];
  /** How many surnames a person carries (Spain and Portugal/Brazil: two). */
  surnameCount: number;
}

const split = (s: string): string[] => s.split(',').map((x) => x.trim());

export const NAMES: Record<Locale, NamePool> = {
  es: {
    male: split('Antonio, José, Manuel, Francisco, David, Juan, Javier, Daniel, Carlos, Alejandro, Miguel, Rafael, Pablo, Sergio, Jorge, Alberto, Luis, Álvaro, Adrián, Raúl, Iván, Rubén, Óscar, Andrés, José Luis, Juan Carlos'),
    female: split('María, Carmen, Ana, Laura, Lucía, Marta, Cristina, Isabel, Elena, Paula, Sara, Raquel, Pilar, Beatriz, Nuria, Silvia, Irene, Patricia, Rocío, Andrea, María José, Ana Belén, Inés, Sofía'),
    surnames: split('García, Rodríguez, González, Fernández, López, Martínez, Sánchez, Pérez, Gómez, Martín, Jiménez, Ruiz, Hernández, Díaz, Moreno, Muñoz, Álvarez, Romero, Alonso, Gutiérrez, Navarro, Torres, Domínguez, Vázquez, Ramos, Gil, Ramírez, Serrano, Blanco, Molina, Morales, Suárez, Ortega, Delgado, Castro, Ortiz, Rubio, Marín, Sanz, Núñez, Iglesias, Medina, Garrido, Cortés, Castillo, Santos, Lozano, Guerrero, Cano, Prieto'),
    surnameCount: 2,
  },
  pt: {
    male: split('João, José, António, Francisco, Manuel, Pedro, Tiago, Rui, Miguel, Luís, Nuno, Ricardo, Diogo, Gonçalo, Duarte, Rodrigo, Afonso, Tomás'),
    female: split('Maria, Ana, Joana, Inês, Beatriz, Mariana, Catarina, Sofia, Rita, Sara, Carolina, Leonor, Matilde, Teresa, Margarida, Filipa'),
    surnames: split('Silva, Santos, Ferreira, Pereira, Oliveira, Costa, Rodrigues, Martins, Sousa, Fernandes, Gonçalves, Gomes, Lopes, Marques, Alves, Almeida, Ribeiro, Pinto, Carvalho, Teixeira, Moreira, Correia, Mendes, Nunes, Soares, Vieira, Monteiro, Cardoso, Rocha'),
    surnameCount: 2,
  },
  br: {
    male: split('Lucas, Gabriel, Rafael, Matheus, Pedro Henrique, João Pedro, Guilherme, Gustavo, Felipe, Bruno, Thiago, Leonardo, Rodrigo, Vinícius, Eduardo, Carlos Eduardo'),
    female: split('Ana Clara, Júlia, Beatriz, Larissa, Mariana, Camila, Letícia, Amanda, Fernanda, Gabriela, Bruna, Juliana, Aline, Patrícia, Vanessa, Luana'),
    surnames: split('da Silva, dos Santos, Oliveira, Souza, Rodrigues, Ferreira, Alves, Pereira, Lima, Gomes, Costa, Ribeiro, Martins, Carvalho, Almeida, Lopes, Soares, Fernandes, Vieira, Barbosa, Rocha, Dias, Nascimento, Andrade, Moreira, Nunes, Marques, Machado, Mendes, Freitas'),
    surnameCount: 2,
  },
  fr: {
    male: split('Jean, Pierre, Michel, Philippe, Nicolas, Julien, Thomas, Antoine, Lucas, Hugo, Mathieu, Alexandre, Laurent, Sébastien, François, Olivier'),
    female: split('Marie, Nathalie, Isabelle, Sophie, Camille, Léa, Manon, Chloé, Julie, Émilie, Céline, Claire, Aurélie, Sandrine, Élodie, Pauline'),
    surnames: split('Martin, Bernard, Dubois, Thomas, Robert, Richard, Petit, Durand, Leroy, Moreau, Simon, Laurent, Lefèvre, Michel, Garcia, David, Bertrand, Roux, Vincent, Fournier, Morel, Girard, André, Lefebvre, Mercier, Dupont, Lambert, Bonnet, François, Martinez'),
    surnameCount: 1,
  },
  it: {
    male: split('Giuseppe, Giovanni, Antonio, Mario, Luigi, Francesco, Alessandro, Andrea, Marco, Matteo, Lorenzo, Davide, Stefano, Paolo, Roberto, Luca'),
    female: split('Maria, Anna, Giulia, Francesca, Chiara, Sara, Laura, Valentina, Alessandra, Elena, Martina, Federica, Silvia, Paola, Giorgia, Elisa'),
    surnames: split('Rossi, Russo, Ferrari, Esposito, Bianchi, Romano, Colombo, Ricci, Marino, Greco, Bruno, Gallo, Conti, De Luca, Mancini, Costa, Giordano, Rizzo, Lombardi, Moretti, Barbieri, Fontana, Santoro, Mariani, Rinaldi, Caruso, Ferrara, Galli, Martini, Leone'),
    surnameCount: 1,
  },
  us: {
    male: split('James, John, Robert, Michael, William, David, Richard, Joseph, Thomas, Christopher, Daniel, Matthew, Anthony, Mark, Andrew, Joshua'),
    female: split('Mary, Patricia, Jennifer, Linda, Elizabeth, Barbara, Susan, Jessica, Sarah, Karen, Emily, Ashley, Michelle, Amanda, Melissa, Stephanie'),
    surnames: split('Smith, Johnson, Williams, Brown, Jones, Garcia, Miller, Davis, Rodriguez, Martinez, Hernandez, Lopez, Wilson, Anderson, Thomas, Taylor, Moore, Jackson, Martin, Lee, Thompson, White, Harris, Clark, Lewis, Robinson, Walker, Young, Allen, King'),
    surnameCount: 1,
  },
  en: {
    male: split('Oliver, Harry, George, Jack, Liam, Sean, Conor, James, William, Thomas, Daniel, Patrick'),
    female: split('Olivia, Amelia, Emily, Sophie, Aoife, Niamh, Grace, Charlotte, Emma, Jessica, Hannah, Ciara'),
    surnames: split("Smith, Jones, Taylor, Brown, Williams, Wilson, Murphy, Kelly, O'Brien, Walsh, Byrne, Evans, Davies, Roberts, Walker, Wright, Ryan, Doyle"),
    surnameCount: 1,
  },
  de: {
    male: split('Lukas, Maximilian, Felix, Jonas, Leon, Paul, Stefan, Thomas, Michael, Andreas, Florian, Tobias'),
    female: split('Anna, Lena, Laura, Julia, Katharina, Sabine, Petra, Sophie, Marie, Hannah, Johanna, Lea'),
    surnames: split('Müller, Schmidt, Schneider, Fischer, Weber, Meyer, Wagner, Becker, Schulz, Hoffmann, Schäfer, Koch, Bauer, Richter, Klein, Wolf, Schröder, Neumann, Gruber, Huber'),
    surnameCount: 1,
  },
  nl: {
    male: split('Daan, Sem, Lucas, Jan, Pieter, Thijs, Bram, Ruben, Wouter, Koen'),
    female: split('Emma, Julia, Sophie, Anna, Lotte, Sanne, Fleur, Eva, Lieke, Femke'),
    surnames: split('de Jong, Jansen, de Vries, van den Berg, van Dijk, Bakker, Janssens, Visser, Smit, Meijer, de Boer, Mulder, Peeters, Maes'),
    surnameCount: 1,
  },
  pl: {
    male: split('Piotr, Krzysztof, Andrzej, Tomasz, Paweł, Michał, Marcin, Jakub, Adam, Łukasz'),
    female: split('Anna, Maria, Katarzyna, Małgorzata, Agnieszka, Barbara, Ewa, Magdalena, Joanna, Monika'),
    surnames: split('Nowak, Wójcik, Kowalczyk, Mazur, Krawczyk, Kaczmarek, Zając, Król, Wieczorek, Dudek, Adamczyk, Pawlak'),
    surnameCount: 1,
  },
  ro: {
    male: split('Andrei, Alexandru, Mihai, Ion, Gabriel, Ștefan, Florin, Cristian, Vlad, Radu'),
    female: split('Maria, Elena, Ioana, Andreea, Ana, Mihaela, Cristina, Alexandra, Roxana, Diana'),
    surnames: split('Popescu, Ionescu, Popa, Radu, Dumitru, Stan, Stoica, Gheorghe, Munteanu, Constantin, Ene, Matei'),
    surnameCount: 1,
  },
  se: {
    male: split('Erik, Lars, Karl, Anders, Johan, Per, Nils, Oskar, Gustav, Axel'),
    female: split('Maria, Anna, Eva, Karin, Kristina, Lena, Sara, Emma, Elin, Ida'),
    surnames: split('Andersson, Johansson, Karlsson, Nilsson, Eriksson, Larsson, Olsson, Persson, Svensson, Gustafsson, Pettersson, Jonsson'),
    surnameCount: 1,
  },
};

export interface Place {
  city: string;
  region: string;
  /** Postal code (a full code; the generator may vary the last digits where the format allows). */
  postal: string;
  /** Extra per-country code: Italian cadastral (Belfiore) code, French department+commune (INSEE), US state. */
  code?: string;
}

const P = (city: string, region: string, postal: string, code?: string): Place => ({ city, region, postal, code });

export const PLACES: Record<string, readonly Place[]> = {
  ESP: [
    P('Madrid', 'Madrid', '28013'), P('Barcelona', 'Barcelona', '08007'), P('Valencia', 'Valencia', '46002'),
    P('Sevilla', 'Sevilla', '41004'), P('Zaragoza', 'Zaragoza', '50001'), P('Málaga', 'Málaga', '29005'),
    P('Bilbao', 'Bizkaia', '48001'), P('Murcia', 'Murcia', '30004'), P('Valladolid', 'Valladolid', '47001'),
    P('A Coruña', 'A Coruña', '15003'), P('Granada', 'Granada', '18009'), P('Alicante', 'Alicante', '03002'),
    P('Palma', 'Illes Balears', '07001'), P('Oviedo', 'Asturias', '33003'),
  ],
  PRT: [
    P('Lisboa', 'Lisboa', '1100-148'), P('Porto', 'Porto', '4000-322'), P('Braga', 'Braga', '4700-312'),
    P('Coimbra', 'Coimbra', '3000-150'), P('Faro', 'Faro', '8000-138'), P('Setúbal', 'Setúbal', '2900-322'),
  ],
  FRA: [
    P('Paris', 'Île-de-France', '75011', '75111'), P('Lyon', 'Auvergne-Rhône-Alpes', '69003', '69383'),
    P('Marseille', "Provence-Alpes-Côte d'Azur", '13006', '13206'), P('Toulouse', 'Occitanie', '31000', '31555'),
    P('Nantes', 'Pays de la Loire', '44000', '44109'), P('Bordeaux', 'Nouvelle-Aquitaine', '33000', '33063'),
    P('Lille', 'Hauts-de-France', '59000', '59350'),
  ],
  ITA: [
    P('Roma', 'RM', '00185', 'H501'), P('Milano', 'MI', '20121', 'F205'), P('Napoli', 'NA', '80133', 'F839'),
    P('Torino', 'TO', '10121', 'L219'), P('Firenze', 'FI', '50122', 'D612'), P('Bologna', 'BO', '40121', 'A944'),
    P('Palermo', 'PA', '90133', 'G273'),
  ],
  BRA: [
    P('São Paulo', 'SP', '01310-100'), P('Rio de Janeiro', 'RJ', '20040-020'), P('Belo Horizonte', 'MG', '30130-010'),
    P('Curitiba', 'PR', '80010-000'), P('Porto Alegre', 'RS', '90010-150'), P('Salvador', 'BA', '40020-000'),
    P('Recife', 'PE', '50030-230'), P('Brasília', 'DF', '70040-010'),
  ],
  USA: [
    P('Sacramento', 'CA', '95814', 'CA'), P('Los Angeles', 'CA', '90012', 'CA'), P('San Francisco', 'CA', '94102', 'CA'),
    P('New York', 'NY', '10001', 'NY'), P('Albany', 'NY', '12207', 'NY'), P('Austin', 'TX', '78701', 'TX'),
    P('Houston', 'TX', '77002', 'TX'), P('Miami', 'FL', '33130', 'FL'), P('Orlando', 'FL', '32801', 'FL'),
    P('Chicago', 'IL', '60601', 'IL'), P('Seattle', 'WA', '98101', 'WA'), P('Philadelphia', 'PA', '19103', 'PA'),
    P('Columbus', 'OH', '43215', 'OH'), P('Atlanta', 'GA', '30303', 'GA'), P('Newark', 'NJ', '07102', 'NJ'),
  ],
  DEU: [P('Berlin', 'Berlin', '10115'), P('München', 'Bayern', '80331'), P('Hamburg', 'Hamburg', '20095'), P('Köln', 'Nordrhein-Westfalen', '50667')],
  AUT: [P('Wien', 'Wien', '1010'), P('Graz', 'Steiermark', '8010'), P('Linz', 'Oberösterreich', '4020')],
  BEL: [P('Bruxelles', 'Bruxelles-Capitale', '1000'), P('Antwerpen', 'Antwerpen', '2000'), P('Gent', 'Oost-Vlaanderen', '9000')],
  NLD: [P('Amsterdam', 'Noord-Holland', '1011 AB'), P('Rotterdam', 'Zuid-Holland', '3011 AD'), P('Utrecht', 'Utrecht', '3511 AA')],
  POL: [P('Warszawa', 'mazowieckie', '00-001'), P('Kraków', 'małopolskie', '31-001'), P('Wrocław', 'dolnośląskie', '50-001')],
  ROU: [P('București', 'București', '010011'), P('Cluj-Napoca', 'Cluj', '400001'), P('Iași', 'Iași', '700001')],
  SWE: [P('Stockholm', 'Stockholms län', '111 22'), P('Göteborg', 'Västra Götalands län', '411 01'), P('Malmö', 'Skåne län', '211 20')],
  GBR: [P('London', 'Greater London', 'SW1A 1AA'), P('Manchester', 'Greater Manchester', 'M1 1AE'), P('Bristol', 'Bristol', 'BS1 4DJ')],
  IRL: [P('Dublin', 'Dublin', 'D02 X285'), P('Cork', 'Cork', 'T12 W8DR'), P('Galway', 'Galway', 'H91 E2K5')],
  COL: [P('Bogotá', 'Cundinamarca', '110111'), P('Medellín', 'Antioquia', '050001')],
  ARG: [P('Buenos Aires', 'Buenos Aires', 'C1002'), P('Córdoba', 'Córdoba', 'X5000')],
  VEN: [P('Caracas', 'Distrito Capital', '1010'), P('Maracaibo', 'Zulia', '4001')],
  PER: [P('Lima', 'Lima', '15001'), P('Arequipa', 'Arequipa', '04001')],
  MEX: [P('Ciudad de México', 'CDMX', '06000'), P('Guadalajara', 'Jalisco', '44100')],
};

export const STREETS: Record<string, readonly string[]> = {
  ESP: split('Calle Mayor, Calle Real, Avenida de la Constitución, Calle de Alcalá, Gran Vía, Calle San Juan, Calle Nueva, Avenida de América, Calle del Carmen, Plaza de España, Calle Sevilla, Paseo de la Estación'),
  PRT: split('Rua Augusta, Avenida da Liberdade, Rua de Santa Catarina, Rua do Ouro, Avenida da República, Rua Direita, Rua de Cedofeita'),
  FRA: split('rue de la République, avenue Victor Hugo, rue du Général Leclerc, boulevard Voltaire, rue Pasteur, rue de la Paix, avenue Jean Jaurès'),
  ITA: split('Via Roma, Via Garibaldi, Corso Vittorio Emanuele II, Via Mazzini, Via Dante, Piazza Cavour, Via Verdi'),
  BRA: split('Rua das Flores, Avenida Paulista, Rua XV de Novembro, Avenida Brasil, Rua da Consolação, Avenida Afonso Pena, Rua Augusta'),
  USA: split('Main St, Oak Ave, Maple Dr, Park Ave, Elm St, Washington Blvd, Pine St, Cedar Ln, Lake Shore Dr, Sunset Blvd'),
  DEU: split('Hauptstraße, Bahnhofstraße, Gartenstraße, Schillerstraße, Goethestraße, Lindenallee'),
  AUT: split('Hauptstraße, Mariahilfer Straße, Bahnhofstraße, Kärntner Straße'),
  BEL: split('Rue Neuve, Meir, Avenue Louise, Veldstraat'),
  NLD: split('Kalverstraat, Damrak, Coolsingel, Oudegracht'),
  POL: split('ulica Marszałkowska, ulica Floriańska, ulica Świdnicka, aleja Jana Pawła II'),
  ROU: split('Strada Victoriei, Bulevardul Unirii, Strada Memorandumului, Strada Lăpușneanu'),
  SWE: split('Drottninggatan, Kungsgatan, Storgatan, Södergatan'),
  GBR: split('High Street, Station Road, Church Lane, Victoria Road, Park Road'),
  IRL: split('Main Street, Grafton Street, Patrick Street, Shop Street'),
};

/** Pick a text in the document language. */
export function tr<T>(lang: Lang, texts: { es: T; pt: T; fr: T; en: T }): T {
  return texts[lang];
}

export const COMPANY_WORDS: Record<Lang, { prefixes: readonly string[]; activities: readonly string[]; forms: readonly [string, string][] }> = {
  es: {
    prefixes: split('Iberia, Levante, Mediterráneo, Norte, Castilla, Atlántico, Sierra, Aurora, Cierzo, Alameda'),
    activities: split('Servicios Informáticos, Construcciones, Consultores, Distribuciones, Logística, Asesores, Ingeniería, Comercial'),
    forms: [['S.L.', 'Sociedad de Responsabilidad Limitada'], ['S.A.', 'Sociedad Anónima']],
  },
  pt: {
    prefixes: split('Lusitânia, Atlântico, Tejo, Douro, Minho, Aurora, Horizonte, Ribeira'),
    activities: split('Serviços Informáticos, Construções, Consultores, Distribuição, Logística, Engenharia, Comércio'),
    forms: [['Lda.', 'Sociedade por Quotas'], ['S.A.', 'Sociedade Anónima']],
  },
  fr: {
    prefixes: split('Atlantique, Horizon, Lumière, Provence, Azur, Boréal, Alpes, Loire'),
    activities: split('Services Informatiques, Construction, Conseil, Distribution, Logistique, Ingénierie, Commerce'),
    forms: [['SARL', 'Société à responsabilité limitée'], ['SAS', 'Société par actions simplifiée']],
  },
  en: {
    prefixes: split('Summit, Riverside, Pioneer, Evergreen, Keystone, Harbor, Lakeside, Northwind'),
    activities: split('IT Services, Construction, Consulting, Distribution, Logistics, Engineering, Trading'),
    forms: [['LLC', 'Limited Liability Company'], ['Inc.', 'Corporation']],
  },
};

export interface Bank {
  name: string;
  code: string;
  bic: string;
}

export const BANKS: Record<string, readonly Bank[]> = {
  ES: [
    { name: 'CaixaBank, S.A.', code: '2100', bic: 'CAIXESBBXXX' },
    { name: 'Banco Santander, S.A.', code: '0049', bic: 'BSCHESMMXXX' },
    { name: 'Banco Bilbao Vizcaya Argentaria, S.A.', code: '0182', bic: 'BBVAESMMXXX' },
    { name: 'Banco de Sabadell, S.A.', code: '0081', bic: 'BSABESBBXXX' },
    { name: 'ING Bank N.V., Sucursal en España', code: '1465', bic: 'INGDESMMXXX' },
    { name: 'Bankinter, S.A.', code: '0128', bic: 'BKBKESMMXXX' },
  ],
  PT: [
    { name: 'Caixa Geral de Depósitos', code: '0035', bic: 'CGDIPTPLXXX' },
    { name: 'Millennium BCP', code: '0033', bic: 'BCOMPTPLXXX' },
    { name: 'Novo Banco', code: '0007', bic: 'BESCPTPLXXX' },
  ],
  FR: [
    { name: 'BNP Paribas', code: '30004', bic: 'BNPAFRPPXXX' },
    { name: 'Société Générale', code: '30003', bic: 'SOGEFRPPXXX' },
    { name: 'Crédit Agricole', code: '18206', bic: 'AGRIFRPP882' },
  ],
  IT: [
    { name: 'Intesa Sanpaolo', code: '03069', bic: 'BCITITMMXXX' },
    { name: 'UniCredit', code: '02008', bic: 'UNCRITMMXXX' },
  ],
  DE: [
    { name: 'Deutsche Bank', code: '10070000', bic: 'DEUTDEBBXXX' },
    { name: 'Commerzbank', code: '10040000', bic: 'COBADEFFXXX' },
  ],
  BE: [{ name: 'KBC Bank', code: '734', bic: 'KREDBEBBXXX' }],
  NL: [{ name: 'ING Bank', code: 'INGB', bic: 'INGBNL2AXXX' }],
  AT: [{ name: 'Erste Bank', code: '20111', bic: 'GIBAATWWXXX' }],
  BR: [{ name: 'Banco do Brasil S.A.', code: '001', bic: 'BRASBRRJXXX' }, { name: 'Itaú Unibanco S.A.', code: '341', bic: 'ITAUBRSPXXX' }],
  US: [{ name: 'JPMorgan Chase Bank, N.A.', code: '021000021', bic: 'CHASUS33XXX' }, { name: 'Bank of America, N.A.', code: '026009593', bic: 'BOFAUS3NXXX' }],
  GB: [{ name: 'Barclays Bank UK PLC', code: 'BARC', bic: 'BARCGB22XXX' }],
};
