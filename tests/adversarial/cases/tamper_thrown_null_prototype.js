throw Object.create(null);
