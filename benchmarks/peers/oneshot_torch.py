"""The headline gradient with PyTorch, as a user's one-file script: prints ``36.0 10.0``."""

import torch

w1 = torch.tensor(5.0, dtype=torch.float64, requires_grad=True)
w2 = torch.tensor(3.0, dtype=torch.float64, requires_grad=True)
f = 3 * w1**2 + 2 * w1 * w2
f.backward()
print(w1.grad.item(), w2.grad.item())
