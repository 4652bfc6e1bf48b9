import { describeStress } from './stress-scenario.js'

describeStress(true, 'request()')
