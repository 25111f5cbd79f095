settings-title = Настройки
settings-language = Язык
settings-notifications = Уведомления
settings-close = Закрыть
settings-closed = Настройки сохранены.
language-title = Выберите язык
language-en = English
language-ru = Русский
back = « Назад
notifications-title = Уведомления { $notify ->
    [off] выключены
   *[other] включены
  }.
notifications-on = Включить
notifications-off = Выключить
notifications-saved = Готово: уведомления { $notify }.
