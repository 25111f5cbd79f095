/**
 * The texts botflow itself says (an answer that is not a number, a command refused mid-dialog), in every
 * locale it ships: English and Russian. A flow with `i18n` overrides any of them in its own catalogs with
 * the message id `botflow-<key>` (e.g. `botflow-error-number = Send digits, please.`); a locale botflow
 * does not ship and the catalog does not cover falls back to English, and `botflow check` says so.
 */

/** Every built-in text, by key; `{$command}` and `{$leave}` are filled in where they apply. */
export const BUILTIN_TEXTS = {
  en: {
    'error-text': 'Please send a text message.',
    'error-number': 'Please send a number, like 42.',
    'error-integer': 'Please send a whole number, like 3.',
    'error-email': 'Please send an email address, like name@example.com.',
    'error-phone': 'Please send a phone number, like +1 555 010 0000.',
    'error-date': 'Please send a date, like 2026-03-31 or 31.03.2026.',
    'error-choice': 'Please choose one of the buttons.',
    'error-contact': 'Please share a contact with the button below.',
    'error-location': 'Please share a location.',
    'error-photo': 'Please send a photo.',
    'error-file': 'Please send a file.',
    'command-refused':
      '/{$command} is not available right now: please finish this step first, or send /{$leave} to stop.',
    'command-refused-stay': '/{$command} is not available right now: please finish this step first.',
  },
  ru: {
    'error-text': 'Пожалуйста, отправьте текстовое сообщение.',
    'error-number': 'Пожалуйста, отправьте число, например 42.',
    'error-integer': 'Пожалуйста, отправьте целое число, например 3.',
    'error-email': 'Пожалуйста, отправьте адрес электронной почты, например name@example.com.',
    'error-phone': 'Пожалуйста, отправьте номер телефона, например +7 900 123-45-67.',
    'error-date': 'Пожалуйста, отправьте дату, например 31.03.2026.',
    'error-choice': 'Пожалуйста, выберите одну из кнопок.',
    'error-contact': 'Пожалуйста, поделитесь контактом кнопкой ниже.',
    'error-location': 'Пожалуйста, отправьте геопозицию.',
    'error-photo': 'Пожалуйста, отправьте фотографию.',
    'error-file': 'Пожалуйста, отправьте файл.',
    'command-refused':
      '/{$command} сейчас недоступна: сначала завершите этот шаг или отправьте /{$leave}, чтобы прервать.',
    'command-refused-stay': '/{$command} сейчас недоступна: сначала завершите этот шаг.',
  },
} as const;

/** The key of a built-in text. */
export type BuiltinKey = keyof (typeof BUILTIN_TEXTS)['en'];

/** Locales botflow ships its texts in. */
export const BUILTIN_LOCALES = Object.keys(BUILTIN_TEXTS) as (keyof typeof BUILTIN_TEXTS)[];

/** The message id under which a flow's catalog overrides a built-in text. */
export const overrideId = (key: BuiltinKey): string => `botflow-${key}`;

/** The built-in text for `locale` (its language, then English), with `args` filled in. */
export function builtinText(
  key: BuiltinKey,
  locale: string,
  args: Readonly<Record<string, string>> = {},
): string {
  const language = locale.toLowerCase().split(/[-_]/)[0] as keyof typeof BUILTIN_TEXTS;
  const template: string = (BUILTIN_TEXTS[language] ?? BUILTIN_TEXTS.en)[key];
  return template.replace(/\{\$(\w+)\}/g, (_, name: string) => args[name] ?? '');
}
