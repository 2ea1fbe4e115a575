# profiles/mirror.profile: the shape of the example in imaptest's
# docs/profile.md (two kinds of users, two IDLE clients), with intervals
# short enough that a one-minute run shows every action.
#
#   imapstress --profile profiles/mirror.profile --duration 60 \
#       --profile-counts counts.json
#
# lmtp_port must be the server's LMTP port (scripts/dovecot-private prints
# DOVECOT_LMTP_PORT); 24 is the usual one.
lmtp_port = 24
lmtp_max_parallel_count = 8
total_user_count = 20
rampup_time = 5s

user aggressive {
  count = 20%
  username_format = aggressive%{username_idx | lfill(3, '0')}
  mail_session_length = 40s
  mail_inbox_delivery_interval = 3s
  mail_spam_delivery_interval = 10s
  mail_action_delay = 1s
  mail_action_repeat_delay = 500ms
  mail_send_interval = 10s
  mail_write_duration = 2s
  mail_inbox_reply_percentage = 30
  mail_inbox_delete_percentage = 10
  mail_inbox_move_percentage = 10
  mail_inbox_move_filter_percentage = 10
}

user normal {
  count = 80%
  username_format = normal%{username_idx | lfill(3, '0')}
  mail_inbox_delivery_interval = 10s
  mail_spam_delivery_interval = 30s
  mail_action_delay = 3s
  mail_action_repeat_delay = 1s
  mail_send_interval = 30s
  mail_write_duration = 5s
  mail_inbox_reply_percentage = 50
  mail_inbox_delete_percentage = 5
  mail_inbox_move_percentage = 5
  mail_inbox_move_filter_percentage = 5
}

client Thunderbird {
  count = 80%
  connection_max_count = 2
  imap_idle = yes
  imap_fetch_immediate = UID RFC822.SIZE FLAGS BODY.PEEK[HEADER.FIELDS (From To Cc Bcc Subject Date Message-ID Priority X-Priority References Newsgroups In-Reply-To Content-Type)]
  imap_fetch_manual = RFC822.SIZE BODY[]
  login_interval = 10s
}

client AppleMail {
  count = 20%
  connection_max_count = 1
  imap_idle = yes
  imap_fetch_immediate = INTERNALDATE UID RFC822.SIZE FLAGS BODY.PEEK[HEADER.FIELDS (date subject from to cc message-id in-reply-to references x-priority x-uniform-type-identifier x-universally-unique-identifier)] MODSEQ
  imap_fetch_manual = BODYSTRUCTURE BODY.PEEK[]
  login_interval = 10s
}
