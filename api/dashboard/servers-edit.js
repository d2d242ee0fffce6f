// Switchboard dashboard: servers-edit (see app.js, window.switchboard).
"use strict";
