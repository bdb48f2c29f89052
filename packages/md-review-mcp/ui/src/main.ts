document.getElementById('app')!.textContent = 'md-review';
