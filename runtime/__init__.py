"""The numpy-backed asynchronous multi-device executor (see SPEC section 6)."""
