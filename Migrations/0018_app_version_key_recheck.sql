-- An app version with a number of more than 9 digits is refused since 0017's release; rows stored
-- before kept a key cut at that number ("5.2147483648" as {5}), which compared wrongly. They keep
-- their text and lose the key: no version rule counts them until they are registered again.
UPDATE devices SET app_version_key = NULL WHERE app_version ~ '(^|\.)[0-9]{10,}';
