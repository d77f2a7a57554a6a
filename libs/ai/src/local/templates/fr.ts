import { cap, conjunction } from './helpers.js';
import type { LocaleTemplates } from './types.js';

/** A colour with its definite article: « l'orange », « le bleu ». */
const withArticle = (colour: string) => (/^[aeiouy]/.test(colour) ? `l'${colour}` : `le ${colour}`);

/**
 * French. The topic and tone are free text of unknown gender, so sentences quote them
 * (« … ») or hang them on a noun (« le sujet », « un ton ») instead of agreeing with them.
 */
export const fr: LocaleTemplates = {
  language: 'fr',
  list: conjunction('fr'),
  colours: {
    black: 'noir',
    white: 'blanc',
    grey: 'gris',
    red: 'rouge',
    orange: 'orange',
    yellow: 'jaune',
    green: 'vert',
    teal: 'bleu canard',
    blue: 'bleu',
    navy: 'bleu marine',
    purple: 'violet',
    pink: 'rose',
    brown: 'marron',
    beige: 'beige',
  },
  neutralTones: 'des tons neutres et doux',
  categories: {
    home_decor: 'Décoration',
    apparel: 'Vêtements',
    accessories: 'Accessoires',
    art_prints: "Tirages d'art",
    stationery: 'Papeterie',
    kitchen: 'Cuisine et arts de la table',
  },
  nouns: {
    home_decor: ['Coussin', 'Vase', 'Plaid'],
    apparel: ['T-shirt', 'Sweat-shirt', 'Sweat à capuche'],
    accessories: ['Tote bag', 'Écharpe', 'Coque de téléphone'],
    art_prints: ["Tirage d'art", 'Affiche', 'Toile imprimée'],
    stationery: ['Carnet', 'Carte de vœux', 'Agenda'],
    kitchen: ['Mug', 'Saladier', 'Torchon'],
  },
  collections: ['Horizon', 'Aurore', 'Escale', 'Prairie', 'Braise', 'Nordique', 'Solstice', 'Atlas'],
  // « coloris » carries the colour, so it never has to agree with the product's gender.
  productName: (noun, collection, colour) => `${noun} ${collection}${colour ? `, coloris ${colour}` : ''}`,
  productDescription: ({ name, colours, orientation, ratio, brightness, category }) =>
    [
      `${name} associe ${colours.length ? conjunction('fr')(colours.map(withArticle)) : fr.neutralTones} ` +
        `dans un format ${{ landscape: 'paysage', portrait: 'portrait', square: 'carré' }[orientation]} ` +
        `aux proportions ${ratio}.`,
      {
        dark: 'Sa palette sombre et profonde lui donne une présence calme et posée.',
        light: 'Sa palette claire et lumineuse apporte de la légèreté à chaque pièce.',
        balanced: "Sa palette équilibrée s'accorde aussi bien avec des tons vifs que neutres.",
      }[brightness],
      `Un choix réfléchi de notre collection « ${category} ».`,
    ].join(' '),
  keywordExtras: ['idée cadeau', 'design', 'boutique en ligne', 'maison', 'sélection'],
  article: {
    titles: [
      ({ topic }) => `« ${cap(topic)} » : le guide pratique`,
      ({ topic }) => `Tout savoir sur « ${topic} »`,
      ({ topic }) => `« ${cap(topic)} » : l'essentiel`,
    ],
    headings: {
      intro: ({ topic }) => `Découvrir « ${topic} »`,
      why: () => 'Pourquoi le sujet compte',
      basics: () => 'Les bases à connaître',
      steps: () => 'Se lancer étape par étape',
      tips: () => 'Conseils pratiques',
      mistakes: () => 'Les erreurs courantes à éviter',
      examples: () => 'Idées et exemples',
      conclusion: () => 'Pour conclure',
    },
    intro: ({ topic, tone }) =>
      `Cet article aborde « ${topic} » sur un ton « ${tone} » : pourquoi ` +
      `le sujet compte, comment commencer et ce qu'il faut garder en tête.`,
    openers: [
      ({ topic }) => `Lorsqu'on aborde le sujet « ${topic} »`,
      ({ topic }) => `Si vous débutez avec « ${topic} »`,
      ({ tone }) => `En gardant un ton « ${tone} »`,
      ({ topic }) => `Pour tous ceux que le sujet « ${topic} » intéresse`,
      ({ topic }) => `Une fois les bases de « ${topic} » bien comprises`,
      ({ topic }) => `Comme beaucoup de lecteurs l'ont constaté avec « ${topic} »`,
      ({ topic }) => `Chaque fois que le sujet « ${topic} » paraît complexe`,
      ({ topic }) => `D'après notre expérience de « ${topic} »`,
      ({ topic }) => `Avant d'investir dans « ${topic} »`,
      ({ tone }) => `Vu sous un angle « ${tone} »`,
    ],
    claims: [
      () => 'les meilleurs résultats viennent de petits pas répétés chaque semaine',
      () => "il est utile de noter ce que l'on veut obtenir avant de commencer",
      () => 'la qualité compte plus que la quantité, et vos clients le remarquent',
      () => 'un peu de préparation fait gagner un temps précieux par la suite',
      () => 'ce sont les détails choisis avec soin dont on se souvient',
      () => 'comparer quelques options côte à côte rend le bon choix évident',
      () => 'demander tôt un avis sincère évite des détours coûteux',
      () => 'les routines simples durent plus longtemps que les plans ambitieux',
      () => "mieux vaut partir de ce que l'on a déjà plutôt que d'acheter davantage",
      () => 'un budget clair transforme une idée vague en projet réaliste',
      () => 'essayer un changement à la fois montre ce qui fonctionne vraiment',
      () => 'de bons matériaux et un savoir-faire honnête méritent toute votre attention',
      () => "partager ce que l'on apprend crée la confiance avec son entourage",
      () => 'la patience fait souvent la différence entre une solution rapide et un résultat durable',
    ],
    tipsIntro: () => 'Voici quelques conseils à garder sous la main :',
    tips: [
      () => 'Commencez petit et appuyez-vous sur ce qui fonctionne.',
      () => 'Fixez un budget simple et respectez-le.',
      () => 'Prenez des notes pour mesurer vos progrès.',
      () => 'Privilégiez la qualité plutôt que la quantité.',
      () => "Demandez l'avis de personnes de confiance.",
      () => 'Revoyez votre approche tous les quelques mois.',
    ],
    conclusion: ({ topic, tone }) =>
      `Le sujet « ${topic} » n'a rien de compliqué : avec un ` +
      `objectif clair et un ton « ${tone} », chaque étape compte.`,
    seoDescription: ({ topic }) =>
      `Un guide sur « ${topic} » : pourquoi le sujet compte, comment ` +
      `débuter, des conseils pratiques et les erreurs à éviter.`,
  },
  social: {
    hooks: {
      friendly: [({ name }) => `Dites bonjour à ${name} !`, ({ name }) => `On pense que ${name} va vous plaire.`],
      professional: [
        ({ name }) => `Nous vous présentons ${name}.`,
        ({ name }) => `${name} : conçu avec soin, fait pour durer.`,
      ],
      playful: [({ name }) => `Devinez qui vient d'arriver ? ${name} !`, ({ name }) => `Surprise : ${name} est là.`],
      luxurious: [
        ({ name }) => `Découvrez ${name}, un luxe discret.`,
        ({ name }) => `${name} : raffinement et intemporalité.`,
      ],
      urgent: [({ name }) => `Ne manquez pas ${name}.`, ({ name }) => `${name} ne restera pas longtemps en stock.`],
      calm: [
        ({ name }) => `Prenez le temps de découvrir ${name}.`,
        ({ name }) => `Un peu de douceur dans votre journée : ${name}.`,
      ],
    },
    categoryLine: (category) => `À retrouver dans notre collection « ${category} ».`,
    priceLine: (price) => `Disponible dès maintenant à ${price}.`,
    calls: {
      friendly: 'Cliquez sur le lien pour le voir de plus près.',
      professional: 'Rendez-vous sur notre boutique pour en savoir plus.',
      playful: 'Allez, faites-vous plaisir.',
      luxurious: 'À découvrir dans notre boutique.',
      urgent: "Commandez aujourd'hui avant qu'il ne soit trop tard.",
      calm: 'Prenez votre temps et passez voir notre boutique.',
    },
    toneWords: {
      friendly: ['amical', 'amicale', 'chaleureux', 'chaleureuse', 'décontracté', 'convivial'],
      professional: ['professionnel', 'professionnelle', 'formel', 'sérieux', 'informatif'],
      playful: ['ludique', 'drôle', 'humoristique', 'amusant', 'décalé'],
      luxurious: ['luxe', 'luxueux', 'élégant', 'élégante', 'raffiné', 'haut de gamme'],
      urgent: ['urgent', 'urgence', 'promo', 'promotion', 'soldes', 'limité'],
      calm: ['calme', 'inspirant', 'serein', 'doux', 'apaisant'],
    },
    fallbackHashtags: ['faitmain', 'nouveauté', 'boutique'],
  },
};
