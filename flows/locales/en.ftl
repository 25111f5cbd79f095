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

booking-ask-day = Which day? (a date like 31.03.2026, or today, tomorrow, friday, in 3 days)
booking-day-range = We take bookings from today to 90 days ahead.
booking-ask-guests = For how many people?
booking-guests-range = We seat 1 to 12 people.
booking-looking = Looking for a free table…
booking-closed = We are closed that day. Which other day?
booking-unavailable = Sorry, our booking system is not answering. Please try again later.
booking-ask-time = At what time?
booking-slot = { $item_time } ({ $item_seats } seats)
booking-no-slots = No free table that day. Which other day?
booking-ask-extras = Anything else? Pick all that apply, then Done.
booking-extra-window = Window seat
booking-extra-highchair = High chair
booking-extra-cake = Birthday cake
booking-no-extras = No extras then.
booking-summary = { $day } at { $time }, { $guests } people, extras: { $extras }. Deposit: { $deposit } €. Book it?
booking-book = Book
booking-change-day = Change day
booking-change-extras = Change extras
booking-saving = Booking your table…
booking-slot-taken = Someone just took that time. Here is what is free now.
booking-booked = Booked: { $day } at { $time } for { $guests } (booking { $booking_id }). See you!
booking-cancelled = Booking cancelled.
booking-remind = Still booking? Just answer the question above.
rate-us-question = How did we do? Rate us from 1 to 5.
rate-us-thanks = Thank you! You gave us { $stars } of 5.
