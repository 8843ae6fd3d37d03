"""``cmharness compare``'s computation: the default corpus (``corpus``) and the seed's classes of a cell
(``classify``)."""
