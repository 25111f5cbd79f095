/**
 * The texts botflow itself says (an answer it cannot read, a refused command, the multi-select "Done"
 * button), as catalogs per locale. A flow overrides any of them with `texts: { <key>: … }` (a literal, or a
 * message id with `i18n`); an i18n flow may instead define `botflow-<key>` in its own catalogs.
 */

/** Keys of the built-in texts. `{$x}` placeholders are filled in by `builtinText`. */
export const BUILTIN_TEXT_KEYS = [
  'error-text',
  'error-number',
  'error-integer',
  'error-email',
  'error-phone',
  'error-date',
  'error-time',
  'error-url',
  'error-choice',
  'error-multi_choice',
  'error-contact',
  'error-location',
  'error-photo',
  'error-file',
  'rule-length',
  'rule-range',
  'rule-regex',
  'rule-one_of',
  'rule-validator-missing',
  'command-refused',
  'command-refused-stuck',
  'multi-done',
  'choices-previous',
  'choices-next',
  'stale',
  'task-busy',
  'task-failed',
  'flow-failed',
  'clarify',
  'handoff-left-waiting',
  'handoff-left-taken',
  'handoff-gone',
  'handoff-closed',
  'handoff-request',
  'handoff-reason',
  'handoff-take',
  'handoff-done',
  'handoff-you-took',
  'handoff-already-taken',
  'handoff-taken-by',
  'handoff-back',
  'handoff-withdrawn',
  'handoff-closed-button',
  'handoff-wait',
  'handoff-joined',
] as const;
export type BuiltinTextKey = (typeof BUILTIN_TEXT_KEYS)[number];

type BuiltinCatalog = Record<BuiltinTextKey, string>;

const en: BuiltinCatalog = {
  'error-text': 'Please send a text message.',
  'error-number': 'Please send a number, like 42.',
  'error-integer': 'Please send a whole number, like 3.',
  'error-email': 'Please send an email address, like name@example.com.',
  'error-phone': 'Please send a phone number, like +1 555 010 0000.',
  'error-date': 'Please send a date, like 2026-03-31 or 31.03.2026.',
  'error-time': 'Please send a time of day, like 18:30.',
  'error-url': 'Please send a web address, like https://example.com.',
  'error-choice': 'Please choose one of the buttons.',
  'error-multi_choice': 'Please pick with the buttons, then press “{$done}”.',
  'error-contact': 'Please share a contact with the button below.',
  'error-location': 'Please share a location.',
  'error-photo': 'Please send a photo.',
  'error-file': 'Please send a file.',
  'rule-length': 'Please use {$min} to {$max} characters.',
  'rule-range': 'Please send a value from {$min} to {$max}.',
  'rule-regex': 'That does not look right, please try again.',
  'rule-one_of': 'Please choose one of the offered values.',
  'rule-validator-missing': 'No validator named "{$name}" is registered.',
  'command-refused':
    'You are in the middle of “{$flow}”. Answer the question above, or send {$leave} to leave it.',
  'command-refused-stuck': 'You are in the middle of “{$flow}”. Please answer the question above first.',
  'multi-done': 'Done',
  'choices-previous': '‹ Back',
  'choices-next': 'More ›',
  stale: 'This menu is outdated.',
  'task-busy': 'One moment, please: still working on it…',
  'task-failed': 'Sorry, something went wrong on our side. Please try again later.',
  'flow-failed':
    'Sorry, something went wrong on our side, and this conversation had to stop. Please start again.',
  clarify: 'Did you mean: {$options}?',
  'handoff-left-waiting': '🚪 {$person} left before an operator took it ({$conversation})',
  'handoff-left-taken': '🚪 {$person} left the conversation ({$conversation})',
  'handoff-gone': '{$person} left the conversation: nothing was sent to them',
  'handoff-closed': 'The request of {$person} is closed: nothing was sent to them',
  'handoff-request': '🙋 {$person} asks for an operator ({$conversation})',
  'handoff-reason': 'Reason: {$reason}',
  'handoff-take': 'Take',
  'handoff-done': 'Done',
  'handoff-you-took': 'You took it: reply to its messages',
  'handoff-already-taken': 'Already taken by {$operator}',
  'handoff-taken-by': '✅ Taken by {$operator}',
  'handoff-back': '☑️ {$conversation}: back to the bot ({$operator})',
  'handoff-withdrawn': '⌛ {$person}: nobody took it in time; withdrawn',
  'handoff-closed-button': '🔒 Closed',
  'handoff-wait': 'An operator will answer you here soon (usually within {$wait}).',
  'handoff-joined': '{$operator} joined the conversation.',
};

const ru: BuiltinCatalog = {
  'error-text': 'Пожалуйста, отправьте текстовое сообщение.',
  'error-number': 'Пожалуйста, отправьте число, например 42.',
  'error-integer': 'Пожалуйста, отправьте целое число, например 3.',
  'error-email': 'Пожалуйста, отправьте адрес почты, например name@example.com.',
  'error-phone': 'Пожалуйста, отправьте номер телефона, например +7 900 000 00 00.',
  'error-date': 'Пожалуйста, отправьте дату, например 31.03.2026.',
  'error-time': 'Пожалуйста, отправьте время, например 18:30.',
  'error-url': 'Пожалуйста, отправьте адрес сайта, например https://example.com.',
  'error-choice': 'Пожалуйста, выберите одну из кнопок.',
  'error-multi_choice': 'Пожалуйста, отметьте варианты кнопками и нажмите «{$done}».',
  'error-contact': 'Пожалуйста, поделитесь контактом кнопкой ниже.',
  'error-location': 'Пожалуйста, отправьте геолокацию.',
  'error-photo': 'Пожалуйста, отправьте фото.',
  'error-file': 'Пожалуйста, отправьте файл.',
  'rule-length': 'Пожалуйста, используйте от {$min} до {$max} символов.',
  'rule-range': 'Пожалуйста, отправьте значение от {$min} до {$max}.',
  'rule-regex': 'Похоже, здесь ошибка. Попробуйте ещё раз.',
  'rule-one_of': 'Пожалуйста, выберите одно из предложенных значений.',
  'rule-validator-missing': 'Валидатор «{$name}» не зарегистрирован.',
  'command-refused': 'Сейчас идёт «{$flow}». Ответьте на вопрос выше или отправьте {$leave}, чтобы выйти.',
  'command-refused-stuck': 'Сейчас идёт «{$flow}». Сначала ответьте на вопрос выше.',
  'multi-done': 'Готово',
  'choices-previous': '‹ Назад',
  'choices-next': 'Ещё ›',
  stale: 'Это меню устарело.',
  'task-busy': 'Минутку, ещё работаем над этим…',
  'task-failed': 'Извините, у нас что-то пошло не так. Попробуйте позже.',
  'flow-failed':
    'Извините, у нас что-то пошло не так, и разговор пришлось прервать. Начните, пожалуйста, заново.',
  clarify: 'Вы имели в виду: {$options}?',
  'handoff-left-waiting': '🚪 {$person} ушёл(а), не дождавшись оператора ({$conversation})',
  'handoff-left-taken': '🚪 {$person} покинул(а) разговор ({$conversation})',
  'handoff-gone': '{$person} покинул(а) разговор: ничего не отправлено',
  'handoff-closed': 'Запрос {$person} закрыт: ничего не отправлено',
  'handoff-request': '🙋 {$person} просит оператора ({$conversation})',
  'handoff-reason': 'Причина: {$reason}',
  'handoff-take': 'Взять',
  'handoff-done': 'Готово',
  'handoff-you-took': 'Запрос ваш: отвечайте на его сообщения',
  'handoff-already-taken': 'Уже взял(а) {$operator}',
  'handoff-taken-by': '✅ Взял(а) {$operator}',
  'handoff-back': '☑️ {$conversation}: снова с ботом ({$operator})',
  'handoff-withdrawn': '⌛ {$person}: никто не взял вовремя; запрос снят',
  'handoff-closed-button': '🔒 Закрыт',
  'handoff-wait': 'Оператор скоро ответит вам здесь (обычно в течение {$wait}).',
  'handoff-joined': '{$operator} подключился(ась) к разговору.',
};

/** The built-in catalogs by language. */
export const BUILTIN_CATALOGS: Readonly<Record<string, BuiltinCatalog>> = { en, ru };

/** True when botflow ships its texts for this locale (by language: `ru-RU` uses `ru`). */
export function hasBuiltinCatalog(locale: string): boolean {
  return languageOf(locale) in BUILTIN_CATALOGS;
}

function languageOf(locale: string): string {
  return locale.toLowerCase().split(/[-_]/)[0] ?? 'en';
}

/** A built-in text in the person's locale (English when botflow has no catalog for it). */
export function builtinText(
  key: BuiltinTextKey,
  locale: string | undefined,
  args: Readonly<Record<string, string | number>> = {},
): string {
  const catalog = BUILTIN_CATALOGS[languageOf(locale ?? 'en')] ?? en;
  return catalog[key].replace(/\{\$(\w+)\}/g, (_, name: string) => String(args[name] ?? '…'));
}
