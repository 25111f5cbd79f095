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
notifications-on = Присылать
notifications-off = Не присылать
notifications-saved = Готово: уведомления { $notify }.

booking-ask-day = На какой день? (дата вроде 31.03.2026, или сегодня, завтра, в пятницу, через 3 дня)
booking-day-range = Мы принимаем брони от сегодня до 90 дней вперёд.
booking-ask-guests = На сколько человек?
booking-guests-range = Мы сажаем от 1 до 12 человек.
booking-looking = Ищем свободный столик…
booking-closed = В этот день мы закрыты. Какой другой день?
booking-unavailable = Извините, система бронирования не отвечает. Попробуйте позже.
booking-ask-time = На какое время?
booking-slot = { $item_time } ({ $item_seats } мест)
booking-no-slots = В этот день свободных столиков нет. Какой другой день?
booking-ask-extras = Что-нибудь ещё? Отметьте всё нужное и нажмите «Готово».
booking-extra-window = У окна
booking-extra-highchair = Детский стул
booking-extra-cake = Торт ко дню рождения
booking-no-extras = Тогда без дополнений.
booking-summary = { $day }, { $time }, гостей: { $guests }, дополнения: { $extras }. Депозит: { $deposit } €. Бронируем?
booking-book = Забронировать
booking-change-day = Другой день
booking-change-extras = Другие дополнения
booking-saving = Бронируем столик…
booking-slot-taken = Это время только что заняли. Вот что свободно сейчас.
booking-booked = Готово: { $day }, { $time }, гостей: { $guests } (бронь { $booking_id }). До встречи!
booking-cancelled = Бронь отменена.
booking-remind = Ещё бронируете? Просто ответьте на вопрос выше.
rate-us-question = Как мы справились? Оцените нас от 1 до 5.
rate-us-thanks = Спасибо! Ваша оценка: { $stars } из 5.
