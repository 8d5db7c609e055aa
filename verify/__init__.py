"""The verifier: happens-before and lifetime constraints checked with Z3 (see SPEC section 3, 5)."""
