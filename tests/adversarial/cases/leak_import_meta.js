return import.meta;
