/** Option tables, the command line and cs.conf, -help and -version: what every program reads as it starts. */
export * from './allow-list.ts';
export * from './argv.ts';
export * from './command-line.ts';
export * from './common-options.ts';
export * from './conf-file.ts';
export * from './errors.ts';
export * from './help.ts';
export * from './info-request.ts';
export * from './parse.ts';
export * from './settings.ts';
export * from './spec.ts';
export * from './subnet.ts';
export * from './validators.ts';
