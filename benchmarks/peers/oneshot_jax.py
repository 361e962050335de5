"""The headline gradient with JAX, as a user's one-file script: prints ``36.0 10.0``."""

import jax

jax.config.update("jax_enable_x64", True)


def f(w1, w2):
    return 3 * w1**2 + 2 * w1 * w2


g1, g2 = jax.grad(f, argnums=(0, 1))(5.0, 3.0)
print(float(g1), float(g2))
