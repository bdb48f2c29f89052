// The Electron entry (`electron dist/main.js <url>`). Only this file loads the `electron` module, and
// only inside Electron; everything it runs is in desktop.ts, tested with a stand-in for the module.
import electron from 'electron';
import { startDesktop } from './desktop.js';

startDesktop(electron, process.argv);
