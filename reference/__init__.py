"""The reference model: data, JavaScript numerics, the store's estimator and the reference price."""
