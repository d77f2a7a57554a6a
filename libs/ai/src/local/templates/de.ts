import { cap, conjunction } from './helpers.js';
import type { LocaleTemplates } from './types.js';

/**
 * German. Colours are nouns (`in Rot`), and every sentence ending starts with its verb, because it
 * always follows an opening clause (`Wenn es um … geht, lohnt es sich …`).
 */
export const de: LocaleTemplates = {
  language: 'de',
  list: conjunction('de'),
  colours: {
    black: 'Schwarz',
    white: 'Weiß',
    grey: 'Grau',
    red: 'Rot',
    orange: 'Orange',
    yellow: 'Gelb',
    green: 'Grün',
    teal: 'Petrol',
    blue: 'Blau',
    navy: 'Marineblau',
    purple: 'Lila',
    pink: 'Rosa',
    brown: 'Braun',
    beige: 'Beige',
  },
  neutralTones: 'sanfte, neutrale Töne',
  categories: {
    home_decor: 'Wohndeko',
    apparel: 'Bekleidung',
    accessories: 'Accessoires',
    art_prints: 'Kunstdrucke',
    stationery: 'Schreibwaren',
    kitchen: 'Küche & Tisch',
  },
  nouns: {
    home_decor: ['Kissen', 'Vase', 'Wohndecke'],
    apparel: ['T-Shirt', 'Sweatshirt', 'Kapuzenpullover'],
    accessories: ['Stofftasche', 'Schal', 'Handyhülle'],
    art_prints: ['Kunstdruck', 'Poster', 'Leinwanddruck'],
    stationery: ['Notizbuch', 'Grußkarte', 'Planer'],
    kitchen: ['Tasse', 'Servierschale', 'Geschirrtuch'],
  },
  collections: ['Horizont', 'Aurora', 'Hafen', 'Wiese', 'Glut', 'Nordlicht', 'Sonnenwende', 'Atlas'],
  productName: (noun, collection, colour) => `${noun} „${collection}“${colour ? ` in ${colour}` : ''}`,
  productDescription: ({ name, colours, orientation, ratio, brightness, category }) =>
    [
      `${name} vereint ${colours.length ? conjunction('de')(colours) : de.neutralTones} in einem ${
        { landscape: 'Querformat', portrait: 'Hochformat', square: 'quadratischen Format' }[orientation]
      } mit dem Seitenverhältnis ${ratio}.`,
      {
        dark: 'Die dunkle, tiefe Farbpalette wirkt ruhig und geerdet.',
        light: 'Die helle, luftige Farbpalette bringt Leichtigkeit in jeden Raum.',
        balanced: 'Die ausgewogene Farbpalette passt zu kräftigen wie zu neutralen Tönen.',
      }[brightness],
      `Eine durchdachte Wahl aus unserer Kollektion „${category}“.`,
    ].join(' '),
  keywordExtras: ['geschenkidee', 'design', 'onlineshop', 'zuhause', 'handverlesen'],
  article: {
    titles: [
      ({ topic }) => `${cap(topic)}: ein praktischer Leitfaden`,
      ({ topic }) => `Alles, was Sie über ${topic} wissen müssen`,
      ({ topic }) => `${cap(topic)}: das Wichtigste im Überblick`,
    ],
    headings: {
      intro: ({ topic }) => `Eine Einführung in ${topic}`,
      why: ({ topic }) => `Warum ${topic} wichtig ist`,
      basics: () => 'Die Grundlagen',
      steps: () => 'Schritt für Schritt loslegen',
      tips: () => 'Praktische Tipps',
      mistakes: () => 'Häufige Fehler, die Sie vermeiden sollten',
      examples: () => 'Ideen und Beispiele',
      conclusion: () => 'Fazit',
    },
    intro: ({ topic, tone }) =>
      `Dieser Artikel betrachtet ${topic} im Ton „${tone}“: warum das ` +
      `Thema wichtig ist, wie Sie beginnen und worauf Sie achten sollten.`,
    openers: [
      ({ topic }) => `Wenn es um ${topic} geht`,
      ({ topic }) => `Wenn Sie gerade erst mit ${topic} anfangen`,
      ({ tone }) => `Wenn der Ton „${tone}“ sein soll`,
      ({ topic }) => `Wenn Ihnen ${topic} am Herzen liegt`,
      ({ topic }) => `Sobald die Grundlagen von ${topic} klar sind`,
      ({ topic }) => `Wie viele Leserinnen und Leser bei ${topic} festgestellt haben`,
      ({ topic }) => `Wann immer ${topic} überwältigend wirkt`,
      ({ topic }) => `Soweit wir ${topic} aus Erfahrung kennen`,
      ({ topic }) => `Bevor Sie Geld in ${topic} investieren`,
      ({ topic, tone }) => `Wenn man ${topic} aus der Perspektive „${tone}“ betrachtet`,
    ],
    claims: [
      () => 'entstehen die besten Ergebnisse aus kleinen Schritten, die jede Woche wiederholt werden',
      () => 'lohnt es sich, vor dem Start aufzuschreiben, was Sie erreichen möchten',
      () => 'zählt Qualität mehr als Menge, und Ihre Kundschaft bemerkt den Unterschied',
      () => 'spart ein wenig Planung später erstaunlich viel Zeit',
      () => 'bleiben vor allem die sorgfältig gewählten Details in Erinnerung',
      () => 'macht ein direkter Vergleich weniger Optionen die richtige Wahl offensichtlich',
      () => 'bewahrt Sie frühes, ehrliches Feedback vor teuren Umwegen',
      () => 'halten einfache Routinen meist länger als ehrgeizige Pläne',
      () => 'hilft es, mit dem zu beginnen, was Sie bereits haben, statt mehr zu kaufen',
      () => 'wird aus einer vagen Idee mit einem klaren Budget ein realistisches Projekt',
      () => 'zeigt eine Änderung nach der anderen, was wirklich funktioniert',
      () => 'verdienen gute Materialien und ehrliches Handwerk besondere Aufmerksamkeit',
      () => 'schafft das Teilen Ihres Wissens Vertrauen bei den Menschen um Sie herum',
      () => 'macht Geduld oft den Unterschied zwischen einer schnellen Lösung und einem dauerhaften Ergebnis',
    ],
    tipsIntro: () => 'Ein paar Tipps, die Sie griffbereit haben sollten:',
    tips: [
      () => 'Fangen Sie klein an und bauen Sie auf dem auf, was funktioniert.',
      () => 'Legen Sie ein einfaches Budget fest und halten Sie sich daran.',
      () => 'Machen Sie Notizen, um Ihre Fortschritte zu sehen.',
      () => 'Setzen Sie auf Qualität statt Menge.',
      () => 'Holen Sie Feedback von Menschen ein, denen Sie vertrauen.',
      () => 'Überprüfen Sie Ihren Ansatz alle paar Monate.',
    ],
    conclusion: ({ topic, tone }) =>
      `${cap(topic)} muss nicht kompliziert sein: Mit einem klaren Ziel und dem Ton „${tone}“ zählt jeder Schritt.`,
    seoDescription: ({ topic }) =>
      `Ein Leitfaden zu ${topic}: warum es wichtig ist, wie Sie anfangen, praktische Tipps und häufige Fehler.`,
  },
  social: {
    hooks: {
      friendly: [
        ({ name }) => `Sagen Sie Hallo zu ${name}!`,
        ({ name }) => `Wir glauben, ${name} wird Ihnen gefallen.`,
      ],
      professional: [
        ({ name }) => `Wir stellen vor: ${name}.`,
        ({ name }) => `${name}: sorgfältig gestaltet, gemacht für lange Zeit.`,
      ],
      playful: [
        ({ name }) => `Raten Sie mal, wer gerade angekommen ist? ${name}!`,
        ({ name }) => `Überraschung: ${name} ist da.`,
      ],
      luxurious: [
        ({ name }) => `Entdecken Sie ${name}, stiller Luxus.`,
        ({ name }) => `${name}: raffiniert und zeitlos.`,
      ],
      urgent: [({ name }) => `Verpassen Sie nicht ${name}.`, ({ name }) => `${name} ist nicht lange vorrätig.`],
      calm: [({ name }) => `Nehmen Sie sich Zeit für ${name}.`, ({ name }) => `Ein wenig Ruhe für Ihren Tag: ${name}.`],
    },
    categoryLine: (category) => `Aus unserer Kollektion „${category}“.`,
    priceLine: (price) => `Jetzt erhältlich für ${price}.`,
    calls: {
      friendly: 'Tippen Sie auf den Link, um es sich genauer anzusehen.',
      professional: 'Besuchen Sie unseren Shop, um mehr zu erfahren.',
      playful: 'Los, gönnen Sie sich etwas.',
      luxurious: 'Entdecken Sie es in unserem Shop.',
      urgent: 'Bestellen Sie noch heute, bevor es weg ist.',
      calm: 'Lassen Sie sich Zeit und schauen Sie in unserem Shop vorbei.',
    },
    toneWords: {
      friendly: ['freundlich', 'herzlich', 'locker', 'persönlich'],
      professional: ['professionell', 'sachlich', 'formell', 'seriös'],
      playful: ['verspielt', 'lustig', 'witzig', 'humorvoll'],
      luxurious: ['luxus', 'luxuriös', 'edel', 'elegant', 'hochwertig'],
      urgent: ['dringend', 'angebot', 'rabatt', 'aktion', 'limitiert'],
      calm: ['ruhig', 'inspirierend', 'entspannt', 'sanft'],
    },
    fallbackHashtags: ['handgemacht', 'neuheit', 'onlineshop'],
  },
};
