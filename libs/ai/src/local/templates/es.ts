import { cap, conjunction } from './helpers.js';
import type { LocaleTemplates } from './types.js';

/** Spanish. Colours are named as nouns (`en rojo`) so they never agree with the product. */
export const es: LocaleTemplates = {
  language: 'es',
  list: conjunction('es'),
  colours: {
    black: 'negro',
    white: 'blanco',
    grey: 'gris',
    red: 'rojo',
    orange: 'naranja',
    yellow: 'amarillo',
    green: 'verde',
    teal: 'verde azulado',
    blue: 'azul',
    navy: 'azul marino',
    purple: 'morado',
    pink: 'rosa',
    brown: 'marrón',
    beige: 'beige',
  },
  neutralTones: 'tonos neutros y suaves',
  categories: {
    home_decor: 'Decoración',
    apparel: 'Ropa',
    accessories: 'Accesorios',
    art_prints: 'Láminas artísticas',
    stationery: 'Papelería',
    kitchen: 'Cocina y mesa',
  },
  nouns: {
    home_decor: ['Cojín', 'Jarrón', 'Manta'],
    apparel: ['Camiseta', 'Sudadera', 'Sudadera con capucha'],
    accessories: ['Bolsa de tela', 'Bufanda', 'Funda de móvil'],
    art_prints: ['Lámina', 'Póster', 'Lienzo'],
    stationery: ['Cuaderno', 'Tarjeta de felicitación', 'Agenda'],
    kitchen: ['Taza', 'Ensaladera', 'Paño de cocina'],
  },
  collections: ['Horizonte', 'Aurora', 'Puerto', 'Pradera', 'Brasa', 'Nórdico', 'Solsticio', 'Atlas'],
  productName: (noun, collection, colour) => `${noun} ${collection}${colour ? `, color ${colour}` : ''}`,
  productDescription: ({ name, colours, orientation, ratio, brightness, category }) =>
    [
      `${name} combina ${colours.length ? conjunction('es')(colours) : es.neutralTones} en un formato ${
        { landscape: 'horizontal', portrait: 'vertical', square: 'cuadrado' }[orientation]
      } de proporciones ${ratio}.`,
      {
        dark: 'Su paleta oscura y profunda le da una presencia serena.',
        light: 'Su paleta clara y luminosa aporta frescura a cualquier espacio.',
        balanced: 'Su paleta equilibrada combina tanto con tonos vivos como neutros.',
      }[brightness],
      `Una elección cuidada de nuestra colección «${category}».`,
    ].join(' '),
  keywordExtras: ['idea de regalo', 'diseño', 'tienda online', 'hogar', 'selección'],
  article: {
    titles: [
      ({ topic }) => `${cap(topic)}: guía práctica`,
      ({ topic }) => `Todo lo que necesitas saber sobre ${topic}`,
      ({ topic }) => `${cap(topic)}: lo esencial`,
    ],
    headings: {
      intro: ({ topic }) => `Introducción a ${topic}`,
      why: ({ topic }) => `Por qué importa ${topic}`,
      basics: () => 'Lo básico que debes saber',
      steps: () => 'Primeros pasos',
      tips: () => 'Consejos prácticos',
      mistakes: () => 'Errores comunes que conviene evitar',
      examples: () => 'Ideas y ejemplos',
      conclusion: () => 'Conclusión',
    },
    intro: ({ topic, tone }) =>
      `Este artículo habla de ${topic} con un tono «${tone}»: por ` +
      `qué importa, cómo empezar y qué tener en cuenta por el camino.`,
    openers: [
      ({ topic }) => `Cuando se trata de ${topic}`,
      ({ topic }) => `Si estás empezando con ${topic}`,
      ({ tone }) => `Manteniendo un tono «${tone}»`,
      ({ topic }) => `Para quien se interesa por ${topic}`,
      ({ topic }) => `Una vez claras las bases de ${topic}`,
      ({ topic }) => `Como han comprobado muchos lectores con ${topic}`,
      ({ topic }) => `Cada vez que el tema de ${topic} parece complicado`,
      ({ topic }) => `Según nuestra experiencia con ${topic}`,
      ({ topic }) => `Antes de invertir en ${topic}`,
      ({ tone }) => `Visto desde un enfoque «${tone}»`,
    ],
    claims: [
      () => 'los mejores resultados llegan con pequeños pasos repetidos cada semana',
      () => 'conviene anotar lo que quieres lograr antes de empezar',
      () => 'la calidad importa más que la cantidad, y tus clientes lo notan',
      () => 'un poco de planificación ahorra mucho tiempo más adelante',
      () => 'los detalles elegidos con cuidado son los que la gente recuerda',
      () => 'comparar varias opciones lado a lado hace evidente la mejor elección',
      () => 'pedir una opinión sincera desde el principio evita desvíos costosos',
      () => 'las rutinas sencillas duran más que los planes ambiciosos',
      () => 'es mejor empezar con lo que ya tienes que comprar más',
      () => 'un presupuesto claro convierte una idea vaga en un proyecto realista',
      () => 'probar un cambio cada vez muestra lo que de verdad funciona',
      () => 'los buenos materiales y el trabajo bien hecho merecen tu atención',
      () => 'compartir lo que aprendes genera confianza con quienes te rodean',
      () => 'la paciencia suele marcar la diferencia entre un arreglo rápido y un resultado duradero',
    ],
    tipsIntro: () => 'Aquí tienes algunos consejos para tener a mano:',
    tips: [
      () => 'Empieza poco a poco y apóyate en lo que funciona.',
      () => 'Fija un presupuesto sencillo y respétalo.',
      () => 'Toma notas para ver tu progreso.',
      () => 'Prioriza la calidad sobre la cantidad.',
      () => 'Pide opinión a personas de confianza.',
      () => 'Revisa tu enfoque cada pocos meses.',
    ],
    conclusion: ({ topic, tone }) =>
      `Hablar de ${topic} no tiene por qué ser complicado: con ` +
      `un objetivo claro y un tono «${tone}», cada paso cuenta.`,
    seoDescription: ({ topic }) =>
      `Guía sobre ${topic}: por qué importa, cómo empezar, consejos prácticos y errores comunes que conviene evitar.`,
  },
  social: {
    hooks: {
      friendly: [({ name }) => `¡Te presentamos ${name}!`, ({ name }) => `Creemos que ${name} te va a encantar.`],
      professional: [
        ({ name }) => `Presentamos ${name}.`,
        ({ name }) => `${name}: diseñado con cuidado, hecho para durar.`,
      ],
      playful: [
        ({ name }) => `¿Adivina quién acaba de llegar? ¡${name}!`,
        ({ name }) => `Giro de guion: ${name} ya está aquí.`,
      ],
      luxurious: [({ name }) => `Descubre ${name}, un lujo discreto.`, ({ name }) => `${name}: refinado y atemporal.`],
      urgent: [({ name }) => `No te pierdas ${name}.`, ({ name }) => `${name} no durará mucho en stock.`],
      calm: [
        ({ name }) => `Tómate un momento para descubrir ${name}.`,
        ({ name }) => `Un poco de calma para tu día: ${name}.`,
      ],
    },
    categoryLine: (category) => `Forma parte de nuestra colección «${category}».`,
    priceLine: (price) => `Ya disponible por ${price}.`,
    calls: {
      friendly: 'Toca el enlace para verlo de cerca.',
      professional: 'Visita nuestra tienda para saber más.',
      playful: 'Venga, date un capricho.',
      luxurious: 'Descúbrelo en nuestra tienda.',
      urgent: 'Haz tu pedido hoy antes de que se agote.',
      calm: 'Tómate tu tiempo y echa un vistazo a nuestra tienda.',
    },
    toneWords: {
      friendly: ['amigable', 'cercano', 'cálido', 'amistoso'],
      professional: ['profesional', 'formal', 'serio', 'informativo'],
      playful: ['divertido', 'gracioso', 'desenfadado', 'humorístico'],
      luxurious: ['lujo', 'lujoso', 'elegante', 'sofisticado'],
      urgent: ['urgente', 'oferta', 'promoción', 'rebajas', 'limitado'],
      calm: ['tranquilo', 'inspirador', 'sereno', 'relajado'],
    },
    fallbackHashtags: ['hechoamano', 'novedad', 'tiendaonline'],
  },
};
