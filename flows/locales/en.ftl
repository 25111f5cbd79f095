settings-title = Settings
settings-language = Language
settings-notifications = Notifications
settings-close = Close
settings-closed = Settings saved.
language-title = Choose your language
language-en = English
language-ru = Русский
back = « Back
notifications-title = Notifications are { $notify ->
    [off] off
   *[other] on
  }.
notifications-on = Turn on
notifications-off = Turn off
notifications-saved = Done: notifications { $notify }.
