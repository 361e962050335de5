"""The headline gradient with TensorFlow, as a user's one-file script: prints ``36.0 10.0``."""

import tensorflow as tf

w1 = tf.Variable(5.0, dtype=tf.float64)
w2 = tf.Variable(3.0, dtype=tf.float64)
with tf.GradientTape() as tape:
    f = 3 * w1**2 + 2 * w1 * w2
g1, g2 = tape.gradient(f, [w1, w2])
print(float(g1), float(g2))
