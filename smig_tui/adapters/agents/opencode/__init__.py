"""OpenCode (npm `opencode-ai`, verified with 1.18.33): its sessions read and written.

`home` finds the database, `database` opens it read-only, `convert` turns its rows into smig's
messages, `source` lists and loads sessions, `storage_tree` reads the legacy JSON tree, and
`writer` writes a migrated session through `opencode import`.
"""
