{windows}
SELECT tick_at, id FROM stop