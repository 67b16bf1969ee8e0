/* hipscan builtin header: intrinsics are not analysed; declared empty. */
