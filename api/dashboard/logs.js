// Switchboard dashboard: logs (see app.js, window.switchboard).
"use strict";
