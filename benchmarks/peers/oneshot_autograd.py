"""The headline gradient with HIPS autograd, as a user's one-file script: prints ``36.0 10.0``."""

from autograd import grad


def f(w1, w2):
    return 3 * w1**2 + 2 * w1 * w2


print(grad(f, 0)(5.0, 3.0), grad(f, 1)(5.0, 3.0))
