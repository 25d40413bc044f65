/** A parsed flag value: what the CLI parser hands to the configuration resolvers. */
export type FlagValue = string | number | boolean | undefined;
