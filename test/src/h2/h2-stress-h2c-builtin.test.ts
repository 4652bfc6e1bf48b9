import { describeStress } from './stress-scenario.js'

describeStress(false, 'built-in connector')
