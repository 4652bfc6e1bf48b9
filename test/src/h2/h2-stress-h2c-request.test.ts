import { describeStress } from './stress-scenario.js'

describeStress(false, 'request()')
