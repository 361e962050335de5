"""apps.derive: derivatives without a point -- diff (every partial, simplified, in the
user's notation), implicit differentiation, and taylor series.

Imports the layers below apps, and the apps rooms catalog and critical."""
