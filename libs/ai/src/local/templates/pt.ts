import { cap, conjunction } from './helpers.js';
import type { LocaleTemplates } from './types.js';

/**
 * Portuguese, for pt, pt-BR and pt-PT alike (Brazilian spelling where the two differ). Colours are
 * named after `tom` (masculine), so they never agree with the product.
 */
export const pt: LocaleTemplates = {
  language: 'pt',
  list: conjunction('pt'),
  colours: {
    black: 'preto',
    white: 'branco',
    grey: 'cinza',
    red: 'vermelho',
    orange: 'laranja',
    yellow: 'amarelo',
    green: 'verde',
    teal: 'verde-azulado',
    blue: 'azul',
    navy: 'azul-marinho',
    purple: 'roxo',
    pink: 'rosa',
    brown: 'marrom',
    beige: 'bege',
  },
  neutralTones: 'tons neutros e suaves',
  categories: {
    home_decor: 'Decoração',
    apparel: 'Vestuário',
    accessories: 'Acessórios',
    art_prints: 'Quadros e pôsteres',
    stationery: 'Papelaria',
    kitchen: 'Cozinha e mesa',
  },
  nouns: {
    home_decor: ['Almofada', 'Vaso', 'Manta'],
    apparel: ['Camiseta', 'Moletom', 'Moletom com capuz'],
    accessories: ['Ecobag', 'Cachecol', 'Capa de celular'],
    art_prints: ['Gravura', 'Pôster', 'Tela impressa'],
    stationery: ['Caderno', 'Cartão comemorativo', 'Agenda'],
    kitchen: ['Caneca', 'Saladeira', 'Pano de prato'],
  },
  collections: ['Horizonte', 'Aurora', 'Porto', 'Prado', 'Brasa', 'Nórdico', 'Solstício', 'Atlas'],
  productName: (noun, collection, colour) => `${noun} ${collection}${colour ? `, tom ${colour}` : ''}`,
  productDescription: ({ name, colours, orientation, ratio, brightness, category }) =>
    [
      `${name} combina ${colours.length ? conjunction('pt')(colours) : pt.neutralTones} num formato ${
        { landscape: 'horizontal', portrait: 'vertical', square: 'quadrado' }[orientation]
      } com proporções ${ratio}.`,
      {
        dark: 'A paleta escura e profunda transmite uma presença serena.',
        light: 'A paleta clara e luminosa traz leveza a qualquer ambiente.',
        balanced: 'A paleta equilibrada combina tanto com tons vivos como com tons neutros.',
      }[brightness],
      `Uma escolha cuidada da nossa coleção “${category}”.`,
    ].join(' '),
  keywordExtras: ['ideia de presente', 'design', 'loja online', 'casa', 'seleção'],
  article: {
    titles: [
      ({ topic }) => `${cap(topic)}: um guia prático`,
      ({ topic }) => `Tudo o que você precisa saber sobre ${topic}`,
      ({ topic }) => `${cap(topic)}: o essencial`,
    ],
    headings: {
      intro: ({ topic }) => `Uma introdução a ${topic}`,
      why: ({ topic }) => `Por que ${topic} é importante`,
      basics: () => 'O básico que você precisa saber',
      steps: () => 'Primeiros passos',
      tips: () => 'Dicas práticas',
      mistakes: () => 'Erros comuns a evitar',
      examples: () => 'Ideias e exemplos',
      conclusion: () => 'Conclusão',
    },
    intro: ({ topic, tone }) =>
      `Este artigo fala de ${topic} num tom “${tone}”: por que é ` +
      `importante, como começar e o que ter em mente pelo caminho.`,
    openers: [
      ({ topic }) => `Quando o assunto é ${topic}`,
      ({ topic }) => `Se você está começando com ${topic}`,
      ({ tone }) => `Mantendo um tom “${tone}”`,
      ({ topic }) => `Para quem se interessa por ${topic}`,
      ({ topic }) => `Depois de entender o básico de ${topic}`,
      ({ topic }) => `Como muitos leitores perceberam com ${topic}`,
      ({ topic }) => `Sempre que o tema ${topic} parecer complicado`,
      ({ topic }) => `Pela nossa experiência com ${topic}`,
      ({ topic }) => `Antes de investir em ${topic}`,
      ({ tone }) => `Sob um olhar “${tone}”`,
    ],
    claims: [
      () => 'os melhores resultados vêm de pequenos passos repetidos toda semana',
      () => 'vale a pena anotar o que você quer alcançar antes de começar',
      () => 'a qualidade importa mais do que a quantidade, e os seus clientes percebem a diferença',
      () => 'um pouco de planejamento economiza muito tempo mais tarde',
      () => 'os detalhes escolhidos com cuidado são os que as pessoas lembram',
      () => 'comparar algumas opções lado a lado torna a escolha certa evidente',
      () => 'pedir uma opinião sincera logo no início evita desvios caros',
      () => 'rotinas simples costumam durar mais do que planos ambiciosos',
      () => 'é melhor começar com o que você já tem do que comprar mais',
      () => 'um orçamento claro transforma uma ideia vaga num projeto realista',
      () => 'testar uma mudança de cada vez mostra o que realmente funciona',
      () => 'bons materiais e um trabalho bem feito merecem a sua atenção',
      () => 'partilhar o que você aprende cria confiança com quem está à sua volta',
      () => 'a paciência costuma ser a diferença entre uma solução rápida e um resultado duradouro',
    ],
    tipsIntro: () => 'Aqui vão algumas dicas para ter sempre à mão:',
    tips: [
      () => 'Comece pequeno e aposte no que funciona.',
      () => 'Defina um orçamento simples e cumpra-o.',
      () => 'Tome notas para acompanhar o seu progresso.',
      () => 'Prefira qualidade a quantidade.',
      () => 'Peça a opinião de pessoas de confiança.',
      () => 'Reveja a sua abordagem a cada poucos meses.',
    ],
    conclusion: ({ topic, tone }) =>
      `Falar de ${topic} não precisa ser complicado: com um objetivo claro e um tom “${tone}”, cada passo conta.`,
    seoDescription: ({ topic }) =>
      `Um guia sobre ${topic}: por que é importante, como começar, dicas práticas e erros comuns a evitar.`,
  },
  social: {
    hooks: {
      friendly: [({ name }) => `Diga olá para ${name}!`, ({ name }) => `Achamos que você vai adorar ${name}.`],
      professional: [
        ({ name }) => `Apresentamos ${name}.`,
        ({ name }) => `${name}: pensado com cuidado, feito para durar.`,
      ],
      playful: [({ name }) => `Adivinha quem acabou de chegar? ${name}!`, ({ name }) => `Reviravolta: ${name} chegou.`],
      luxurious: [({ name }) => `Descubra ${name}, um luxo discreto.`, ({ name }) => `${name}: refinado e atemporal.`],
      urgent: [({ name }) => `Não perca ${name}.`, ({ name }) => `${name} não vai ficar muito tempo em estoque.`],
      calm: [
        ({ name }) => `Tire um momento para conhecer ${name}.`,
        ({ name }) => `Um pouco de calma para o seu dia: ${name}.`,
      ],
    },
    categoryLine: (category) => `Faz parte da nossa coleção “${category}”.`,
    priceLine: (price) => `Já disponível por ${price}.`,
    calls: {
      friendly: 'Toque no link para ver de perto.',
      professional: 'Visite a nossa loja para saber mais.',
      playful: 'Vai, você merece um mimo.',
      luxurious: 'Descubra na nossa loja.',
      urgent: 'Peça hoje antes que acabe.',
      calm: 'Sem pressa: dê uma olhada na nossa loja.',
    },
    toneWords: {
      friendly: ['amigável', 'amigavel', 'próximo', 'caloroso', 'descontraído'],
      professional: ['profissional', 'formal', 'sério', 'informativo'],
      playful: ['divertido', 'engraçado', 'brincalhão', 'descontraída'],
      luxurious: ['luxo', 'luxuoso', 'elegante', 'sofisticado'],
      urgent: ['urgente', 'promoção', 'oferta', 'limitado'],
      calm: ['calmo', 'inspirador', 'sereno', 'tranquilo'],
    },
    fallbackHashtags: ['feitoamao', 'novidade', 'lojaonline'],
  },
};
