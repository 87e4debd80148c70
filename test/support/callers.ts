/**
 * A random client address in 10.0.0.0/8, so each call through the gateway counts as a client of
 * its own and the gateway's limits never interfere with what a test is about.
 */
export const randomClientIp = (): string => `10.${octet()}.${octet()}.${octet()}`;

const octet = () => Math.floor(Math.random() * 250) + 1;
