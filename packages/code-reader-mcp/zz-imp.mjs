const t=performance.now();
await import(process.argv[2]);
console.log('import', (performance.now()-t).toFixed(0));
