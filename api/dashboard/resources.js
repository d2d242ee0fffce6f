// Switchboard dashboard: resources (see app.js, window.switchboard).
"use strict";
