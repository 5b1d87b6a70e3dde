import * as os from 'os';
return typeof os;
